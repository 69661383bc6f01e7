#include "kiln/layers/preprocessing/discretization.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/category_encoding.h"

namespace kiln::layers {

Discretization::Discretization(std::vector<double> bin_boundaries, DiscretizationOptions options)
    : Layer(options.layer_args()),
      boundaries_(std::move(bin_boundaries)),
      options_(std::move(options)) {
  KILN_CHECK(!boundaries_.empty(), "Discretization: bin_boundaries must hold at least one value");
  KILN_CHECK(std::is_sorted(boundaries_.begin(), boundaries_.end()),
             "Discretization: bin_boundaries must be sorted");
  check_output_mode(options_.output_mode, true, "Discretization");
}

std::vector<Tensor> Discretization::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor x = ops::cast(inputs[0], DType::f64);
  const Tensor boundaries =
      from_vector(boundaries_, {static_cast<int64_t>(boundaries_.size())}, DType::f64, x.device());
  // The bin: how many boundaries lie at or below the value.
  const Tensor bins = ops::sum(
      ops::cast(ops::greater_equal(ops::expand_dims(x, -1), boundaries), DType::i64), {-1});
  return {encode_categories(bins, static_cast<int64_t>(boundaries_.size()) + 1,
                            options_.output_mode, dtype_policy().compute,
                            "Discretization '" + name() + "'")};
}

namespace {

using Options = DiscretizationOptions;

struct Arguments : Options {
  std::vector<double> bin_boundaries;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("bin_boundaries", &Arguments::bin_boundaries))},
      FieldTable<Options>{
          field("output_mode", &Options::output_mode), null_field<Options>("num_bins"),
          field("epsilon", &Options::epsilon),
          read_only(fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense"))});
  return table;
}

}  // namespace

Config Discretization::get_config() const {
  Arguments a{options_};
  a.bin_boundaries = boundaries_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr Discretization::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Discretization");
  return std::make_shared<Discretization>(a.bin_boundaries, a);
}

}  // namespace kiln::layers
