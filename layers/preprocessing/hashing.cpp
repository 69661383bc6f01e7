#include "kiln/layers/preprocessing/hashing.h"

#include "kiln/framework/core/error.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/category_encoding.h"

namespace kiln::layers {

namespace {

// As Keras: the policy is int64 for int bins unless one is given.
LayerArgs args_of(const HashingOptions& o) {
  LayerArgs args = o.layer_args();
  if (args.dtype.empty() && o.output_mode == "int") args.dtype = "int64";
  return args;
}

}  // namespace

Hashing::Hashing(int64_t num_bins, HashingOptions options)
    : StringLayer(args_of(options)), num_bins_(num_bins), options_(std::move(options)) {
  const std::string what = "Hashing '" + name() + "'";
  KILN_CHECK(num_bins_ >= 1, what, ": num_bins must be at least 1, got ", num_bins_);
  check_output_mode(options_.output_mode, true, what);
}

Tensor Hashing::encode(const Tensor& strings) const {
  const Tensor host = strings.device().is_cpu() ? strings : strings.to(Device::cpu());
  // With a mask value, bin 0 is the mask's and the hashes fill the others.
  const bool masking = options_.mask_value.has_value() && num_bins_ > 1;
  const auto bins = static_cast<uint64_t>(masking ? num_bins_ - 1 : num_bins_);
  Tensor out = Tensor::empty(host.shape(), DType::i64, Device::cpu());
  const std::string* in = host.data<std::string>();
  int64_t* bin = out.data<int64_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (masking && in[i] == *options_.mask_value) {
      bin[i] = 0;
      continue;
    }
    bin[i] = static_cast<int64_t>(hash_bucket(in[i], bins, options_.salt)) + (masking ? 1 : 0);
  }
  return encode_categories(out, num_bins_, options_.output_mode, DType::f32,
                           "Hashing '" + name() + "'");
}

TensorMeta Hashing::encoded_spec(const TensorMeta& input) const {
  return {options_.output_mode == "int" ? DType::i64 : DType::f32,
          encoded_shape(input.shape, num_bins_, options_.output_mode), Device::cpu()};
}

namespace {

using Options = HashingOptions;

struct Arguments : Options {
  int64_t num_bins = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("num_bins", &Arguments::num_bins))},
      FieldTable<Options>{
          nullable(field(
              "mask_value", &Options::mask_value,
              [](const Config& v) {
                return v.is_null() ? std::nullopt : std::optional<std::string>(v.as_string());
              },
              [](const std::optional<std::string>& m) { return m ? Config(*m) : Config(); })),
          field("output_mode", &Options::output_mode),
          nullable(field(
              "salt", &Options::salt,
              [](const Config& v) { return salt_from_config(v, "Hashing"); }, salt_to_config)),
          fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense")});
  return table;
}

}  // namespace

Config Hashing::get_config() const {
  return write_fields(Arguments{options_, num_bins_}, fields(), Layer::get_config());
}

LayerPtr Hashing::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Hashing");
  return std::make_shared<Hashing>(a.num_bins, a);
}

}  // namespace kiln::layers
