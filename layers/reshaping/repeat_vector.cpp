#include "kiln/layers/reshaping/repeat_vector.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

RepeatVector::RepeatVector(int64_t n, RepeatVectorOptions options)
    : Layer(options.layer_args()), n_(n) {
  KILN_CHECK(n > 0, "RepeatVector: n must be positive, got ", n);
}

std::vector<Tensor> RepeatVector::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor& x = inputs[0];
  KILN_CHECK(x.rank() == 2, "RepeatVector expects [batch, features] inputs, got ", x.shape());
  // Gathering index 0 n times along a new axis repeats the sample without knowing the batch
  // size, and its gradient (a scatter-add) sums the copies back.
  return {ops::gather(ops::expand_dims(x, 1), zeros({n_}, DType::i64, x.device()), 1)};
}

namespace {

// The base arguments with the required n.
struct Arguments : RepeatVectorOptions {
  int64_t n = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table{required(field("n", &Arguments::n))};
  return table;
}

}  // namespace

Config RepeatVector::get_config() const {
  return write_fields(Arguments{{}, n_}, fields(), Layer::get_config());
}

LayerPtr RepeatVector::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RepeatVector");
  return std::make_shared<RepeatVector>(a.n, a);
}

}  // namespace kiln::layers
