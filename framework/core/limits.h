#pragma once
// Bounds on what input may make kiln build (values a document expands to, nesting depth, bytes),
// each with a default no real input comes near, raised through an environment variable when a
// user's input needs more.
#include <cstdint>

namespace kiln {

// The value of environment variable `name` (a positive integer), or `fallback` when it is unset;
// anything else set there is an error naming the variable.
int64_t limit_from_environment(const char* name, int64_t fallback);

}  // namespace kiln
