#pragma once
// "Did you mean" for names a user typed: the known names closest to it by edit distance.
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates within a distance of a third of the name's length (at least 2) that
// tie for the closest.
std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates,
                                       size_t limit = 3);

// "did you mean 'a' or 'b'?", or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace kiln
