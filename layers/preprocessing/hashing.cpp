#include "kiln/layers/preprocessing/hashing.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
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

void Hashing::check_input(const TensorMeta& input) const {
  const std::string what = "Hashing '" + name() + "'";
  const bool text = input.dtype == DType::string;
  KILN_SHAPE_CHECK(text || (input.dtype != DType::boolean && input.dtype != DType::u8), what,
                   " hashes strings or numbers, got ", dtype_name(input.dtype), input.shape);
  const Config* mask = options_.mask_value ? &*options_.mask_value : nullptr;
  KILN_CHECK(mask == nullptr || mask->is_string() == text, what, ": mask_value ", mask->to_json(),
             " cannot match ", text ? "strings" : "numbers");
}

Tensor Hashing::encode(const Tensor& values) const {
  const std::string what = "Hashing '" + name() + "'";
  KILN_CHECK(!values.is_symbolic(), what, " hashes its ", dtype_name(values.dtype()),
             " numbers on the host, outside a model's traced steps: hash them in the dataset (a "
             "map), or give the model strings");
  const Tensor host = values.device().is_cpu() ? values : values.to(Device::cpu());
  const bool text = host.dtype() == DType::string;
  // Keras hashes a number's decimal text, a float truncated to an integer first; a numeric
  // mask_value is compared with the value itself.
  const Tensor integers = text ? Tensor() : ops::cast(host, DType::i64);
  const Tensor numbers = text ? Tensor() : ops::cast(host, DType::f64);
  // With a mask value, bin 0 is the mask's and the hashes fill the others.
  const bool masking = options_.mask_value.has_value() && num_bins_ > 1;
  const auto bins = static_cast<uint64_t>(masking ? num_bins_ - 1 : num_bins_);
  Tensor out = Tensor::empty(host.shape(), DType::i64, Device::cpu());
  int64_t* bin = out.data<int64_t>();
  std::string digits;
  for (int64_t i = 0; i < host.numel(); ++i) {
    const std::string* bytes = &digits;
    bool masked = false;
    if (text) {
      bytes = &host.data<std::string>()[i];
      masked = masking && *bytes == options_.mask_value->as_string();
    } else {
      masked = masking && numbers.data<double>()[i] == options_.mask_value->as_double();
      digits = std::to_string(integers.data<int64_t>()[i]);
    }
    bin[i] =
        masked ? 0
               : static_cast<int64_t>(hash_bucket(*bytes, bins, options_.salt)) + (masking ? 1 : 0);
  }
  return encode_categories(out, num_bins_, options_.output_mode, DType::f32, what);
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
                KILN_CHECK(v.is_null() || v.is_string() || v.is_number(), v.where(),
                           "Hashing: mask_value is a string or a number, got ", v.to_json());
                return v.is_null() ? std::nullopt : std::optional<Config>(v);
              },
              [](const std::optional<Config>& m) { return m ? *m : Config(); })),
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
