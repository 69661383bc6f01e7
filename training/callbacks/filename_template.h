#pragma once
// Keras's checkpoint file name templates: "ckpt-{epoch:02d}-{val_loss:.4f}.weights.h5" with
// Python's format specs for the common cases: [0][width][.precision] then d, f, e or g (none:
// integers as integers, other numbers as Python prints a float).
#include <map>
#include <string>

namespace kiln {

// `values` holds the fields ("epoch", "batch", the logs); a field not there is an error naming
// it and the ones that are.
std::string format_filename(const std::string& pattern,
                            const std::map<std::string, double>& values);

}  // namespace kiln
