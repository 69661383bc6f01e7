#pragma once
// Keras's model.summary() table, box-drawn as Keras 3 prints it.
#include <string>
#include <vector>

#include "kiln/framework/core/shape.h"
#include "kiln/training/model/model.h"

namespace kiln {

// "(None, 28, 28, 1)": unknown dims as None, as Keras writes shapes.
std::string format_shape(const Shape& shape);
// "1.55 MB" (1024-based, two decimals, as Keras's readable_memory_size).
std::string format_bytes(double bytes);
// "401,920".
std::string format_count(int64_t n);

struct SummaryTotals {
  int64_t trainable = 0;
  int64_t non_trainable = 0;
  int64_t optimizer = 0;  // optimizer state, when compiled and built
  int bytes_per_param = 4;
  std::string device;  // where a compiled (or run) model's weights are; empty before
};

// The model a stored Keras config (JSON) describes, rebuilt and summarized; a note instead when
// it does not rebuild or is not a model (`kiln inspect` on a checkpoint).
std::string summary_of_config(const std::string& json);

std::string render_summary(const std::string& model_name, const std::vector<SummaryRow>& rows,
                           const SummaryTotals& totals, int line_length);

}  // namespace kiln
