#include "kiln/layers/reshaping/zero_padding2d.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/spatial_args.h"

namespace kiln::layers {

ZeroPadding2D::ZeroPadding2D(std::vector<std::pair<int64_t, int64_t>> padding,
                             ZeroPadding2DOptions options)
    : Layer(options.layer_args()), padding_(std::move(padding)) {
  KILN_CHECK(padding_.size() == 2, "ZeroPadding2D: padding needs {{top, bottom}, {left, right}}, ",
             "got ", padding_.size(), " pairs");
  for (const auto& [before, after] : padding_)
    KILN_CHECK(before >= 0 && after >= 0, "ZeroPadding2D: padding must not be negative, got (",
               before, ", ", after, ")");
}

std::vector<Tensor> ZeroPadding2D::call(const std::vector<Tensor>& inputs, const CallContext&) {
  KILN_CHECK(inputs[0].rank() == 4, "ZeroPadding2D expects NHWC inputs, got ", inputs[0].shape());
  return {ops::pad(inputs[0], {{0, 0}, padding_[0], padding_[1], {0, 0}})};
}

namespace {

using Padding = std::vector<std::pair<int64_t, int64_t>>;

// The base arguments with padding (Keras's default 1 on every side).
struct Arguments : ZeroPadding2DOptions {
  Padding padding{{1, 1}, {1, 1}};
};

// Keras accepts an int (every side), (rows, cols) (symmetric) or ((top, bottom), (left, right)),
// and writes the last.
Padding padding_of(const Config& p) {
  if (p.is_int()) return {{p.as_int(), p.as_int()}, {p.as_int(), p.as_int()}};
  Padding padding;
  for (const Config& axis : p.as_list()) {
    const std::vector<int64_t> v = per_axis(axis.as_int_list(), 2, "ZeroPadding2D padding", 0);
    padding.emplace_back(v[0], v[1]);
  }
  return padding;
}

Config padding_config(const Padding& padding) {
  Config::List pairs;
  for (const auto& [before, after] : padding)
    pairs.emplace_back(std::vector<int64_t>{before, after});
  return Config(std::move(pairs));
}

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {field("padding", &Arguments::padding, padding_of, padding_config)},
      FieldTable<ZeroPadding2DOptions>{channels_last_field<ZeroPadding2DOptions>()});
  return table;
}

}  // namespace

Config ZeroPadding2D::get_config() const {
  return write_fields(Arguments{{}, padding_}, fields(), Layer::get_config());
}

LayerPtr ZeroPadding2D::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "ZeroPadding2D");
  return std::make_shared<ZeroPadding2D>(a.padding, a);
}

}  // namespace kiln::layers
