#pragma once
// Values no run can train with, refused where they are given rather than after epochs of NaN
// losses: a NaN or infinite learning rate (or schedule parameter) makes every weight NaN at the
// first step, and a negative rate climbs the loss.
#include <string_view>

namespace kiln::optimizers {

// A learning rate: finite and >= 0. `what` names it ("optimizer 'adam': learning_rate").
void check_learning_rate(double rate, std::string_view what);
// Any other parameter of a rate: finite, and > 0 or >= 0 as asked.
void check_finite(double value, std::string_view what);
void check_positive(double value, std::string_view what);
void check_non_negative(double value, std::string_view what);

}  // namespace kiln::optimizers
