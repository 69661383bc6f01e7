#pragma once
// Runs `check` on every case of a golden table (each with a `name`): a case that throws (a config
// kiln cannot read) fails itself, not the rest, and failures name their case.
#include <gtest/gtest.h>

#include <exception>
#include <vector>

namespace kiln::testing {

template <typename Golden, typename Check>
void check_each_golden(const std::vector<Golden>& goldens, Check check) {
  ASSERT_FALSE(goldens.empty());
  for (const Golden& g : goldens) {
    SCOPED_TRACE(g.name);
    try {
      check(g);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

}  // namespace kiln::testing
