#pragma once
// Checking the message of a kiln::Error: what the tests of every module assert about misuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "kiln/framework/core/error.h"

namespace kiln::testing {

// The message of the kiln::Error that `fn` throws ("" and a test failure when it throws none).
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    std::forward<Fn>(fn)();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a kiln::Error";
  return "";
}

// Expects `fn` to throw a kiln::Error whose message contains `part`.
template <typename Fn>
void expect_error(Fn&& fn, const std::string& part) {
  EXPECT_THAT(error_of(std::forward<Fn>(fn)), ::testing::HasSubstr(part));
}

}  // namespace kiln::testing
