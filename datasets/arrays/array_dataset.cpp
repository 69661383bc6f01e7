#include "kiln/datasets/arrays/array_dataset.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "kiln/datasets/numpy_shuffle.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// Rows read at once: about 4 MiB of the widest column, at least one row.
int64_t slab_rows(const std::vector<ArraySourcePtr>& columns) {
  int64_t row_bytes = 1;
  for (const ArraySourcePtr& c : columns)
    row_bytes = std::max<int64_t>(
        row_bytes, c->row_shape().numel() * static_cast<int64_t>(dtype_size(c->dtype())));
  return std::max<int64_t>(1, (int64_t{4} << 20) / row_bytes);
}

// Row `i` of a slab, as a view.
Tensor row_of(const Tensor& slab, const Shape& row_shape, int64_t i) {
  return slab.view(row_shape, i * row_shape.numel());
}

}  // namespace

Dataset array_dataset(const std::vector<ArraySourcePtr>& columns, int64_t begin, int64_t end) {
  KILN_CHECK(!columns.empty(), "array_dataset: no arrays");
  for (const ArraySourcePtr& c : columns)
    KILN_CHECK(c->rows() == columns[0]->rows(), c->name(), " has ", c->rows(), " rows, ",
               columns[0]->name(), " has ", columns[0]->rows(), ": the arrays must match row for ",
               "row");
  if (end < 0) end = columns[0]->rows();
  KILN_CHECK(begin >= 0 && begin <= end && end <= columns[0]->rows(), columns[0]->name(),
             ": rows [", begin, ", ", end, ") of ", columns[0]->rows());
  const int64_t slab = slab_rows(columns);
  return Dataset::from_generator(
      [columns, begin, end, slab]() -> GeneratorFn {
        auto next = std::make_shared<int64_t>(begin);
        auto slab_begin = std::make_shared<int64_t>(begin);
        auto slabs = std::make_shared<std::vector<Tensor>>();
        return [=]() -> std::optional<Element> {
          if (*next >= end) return std::nullopt;
          if (slabs->empty() || *next >= *slab_begin + slab) {
            *slab_begin = *next;
            slabs->clear();
            for (const ArraySourcePtr& c : columns)
              slabs->push_back(c->read(*next, std::min(slab, end - *next)));
          }
          Element element;
          for (size_t i = 0; i < columns.size(); ++i)
            element.push_back(row_of((*slabs)[i], columns[i]->row_shape(), *next - *slab_begin));
          ++*next;
          return element;
        };
      },
      end - begin);
}

std::vector<int64_t> timeseries_starts(int64_t data_rows, std::optional<int64_t> target_rows,
                                       const TimeseriesOptions& o, const std::string& what) {
  KILN_CHECK(o.sequence_length > 0, what, ": sequence_length must be positive, got ",
             o.sequence_length);
  KILN_CHECK(o.sampling_rate > 0 && o.sampling_rate < data_rows, what,
             ": sampling_rate must be in [1, ", data_rows, "), the data's length; got ",
             o.sampling_rate);
  KILN_CHECK(o.sequence_stride > 0 && o.sequence_stride < data_rows, what,
             ": sequence_stride must be in [1, ", data_rows, "), the data's length; got ",
             o.sequence_stride);
  KILN_CHECK(o.start_index >= 0 && o.start_index < data_rows, what, ": start_index must be in [0, ",
             data_rows, "), the data's length; got ", o.start_index);
  const int64_t end = o.end_index < 0 ? data_rows : o.end_index;
  KILN_CHECK(end > o.start_index && end <= data_rows, what, ": end_index ", o.end_index,
             " must be above start_index ", o.start_index, " and at most the data's length ",
             data_rows);
  int64_t windows = end - o.start_index - (o.sequence_length - 1) * o.sampling_rate;
  if (target_rows) windows = std::min(windows, *target_rows);
  KILN_CHECK(windows > 0, what, ": no window of ", o.sequence_length, " steps every ",
             o.sampling_rate, " fits in rows [", o.start_index, ", ", end, ")");
  std::vector<int64_t> starts;
  for (int64_t p = 0; p < windows; p += o.sequence_stride) starts.push_back(p);
  if (o.shuffle) numpy_shuffle(starts, o.seed);
  return starts;
}

Dataset timeseries_dataset(const ArraySourcePtr& data, const ArraySourcePtr& targets,
                           const TimeseriesOptions& o) {
  return timeseries_windows(
      data, targets, o,
      timeseries_starts(data->rows(), targets ? std::optional(targets->rows()) : std::nullopt, o,
                        data->name()));
}

Dataset timeseries_windows(const ArraySourcePtr& data, const ArraySourcePtr& targets,
                           const TimeseriesOptions& o, std::vector<int64_t> starts) {
  std::vector<int64_t> dims{o.sequence_length};
  dims.insert(dims.end(), data->row_shape().dims().begin(), data->row_shape().dims().end());
  const Shape window_shape(dims);
  const int64_t span = (o.sequence_length - 1) * o.sampling_rate + 1;
  const auto count = static_cast<int64_t>(starts.size());
  auto at = std::make_shared<const std::vector<int64_t>>(std::move(starts));
  return Dataset::from_generator(
      [=]() -> GeneratorFn {
        auto i = std::make_shared<size_t>(0);
        return [=]() -> std::optional<Element> {
          if (*i >= at->size()) return std::nullopt;
          const int64_t start = o.start_index + (*at)[(*i)++];
          // The rows the window spans, then every sampling_rate-th of them.
          const Tensor rows = data->read(start, span);
          Tensor window = Tensor::empty(window_shape, data->dtype(), Device::cpu());
          const size_t row_bytes =
              static_cast<size_t>(data->row_shape().numel()) * dtype_size(data->dtype());
          for (int64_t k = 0; k < o.sequence_length; ++k)
            std::memcpy(static_cast<char*>(window.raw_data()) + static_cast<size_t>(k) * row_bytes,
                        static_cast<const char*>(rows.raw_data()) +
                            static_cast<size_t>(k * o.sampling_rate) * row_bytes,
                        row_bytes);
          Element element{window};
          if (targets) element.push_back(row_of(targets->read(start, 1), targets->row_shape(), 0));
          return element;
        };
      },
      count);
}

}  // namespace kiln::datasets
