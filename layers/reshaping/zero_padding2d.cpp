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

const FieldTable<ZeroPadding2DOptions>& fields() {
  static const FieldTable<ZeroPadding2DOptions> table{channels_last_field<ZeroPadding2DOptions>()};
  return table;
}

}  // namespace

Config ZeroPadding2D::get_config() const {
  Config::List pairs;
  for (const auto& [before, after] : padding_)
    pairs.emplace_back(std::vector<int64_t>{before, after});
  return write_fields(ZeroPadding2DOptions{}, fields(),
                      Layer::get_config().set("padding", Config(std::move(pairs))));
}

LayerPtr ZeroPadding2D::from_config(const Config& c) {
  // Keras accepts an int (every side), (rows, cols) (symmetric) or ((top, bottom), (left, right)).
  std::vector<std::pair<int64_t, int64_t>> padding{{1, 1}, {1, 1}};
  if (const Config* p = c.find("padding"); p != nullptr && !p->is_null()) {
    padding.clear();
    if (p->is_int()) {
      padding = {{p->as_int(), p->as_int()}, {p->as_int(), p->as_int()}};
    } else {
      for (const Config& axis : p->as_list()) {
        const std::vector<int64_t> v = per_axis(axis.as_int_list(), 2, "ZeroPadding2D padding", 0);
        padding.emplace_back(v[0], v[1]);
      }
    }
  }
  return std::make_shared<ZeroPadding2D>(
      std::move(padding), read_layer_fields(c, fields(), "ZeroPadding2D", {"padding"}));
}

}  // namespace kiln::layers
