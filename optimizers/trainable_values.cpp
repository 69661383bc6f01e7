#include "kiln/optimizers/trainable_values.h"

#include <cmath>

#include "kiln/framework/core/error.h"

namespace kiln::optimizers {

void check_finite(double value, std::string_view what) {
  KILN_CHECK(std::isfinite(value), what, " must be a finite number, got ", value);
}

void check_positive(double value, std::string_view what) {
  check_finite(value, what);
  KILN_CHECK(value > 0, what, " must be > 0, got ", value);
}

void check_non_negative(double value, std::string_view what) {
  check_finite(value, what);
  KILN_CHECK(value >= 0, what, " must be >= 0, got ", value);
}

void check_learning_rate(double rate, std::string_view what) {
  check_non_negative(rate, what);
}

}  // namespace kiln::optimizers
