#include "kiln/framework/core/suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

namespace kiln {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Case-insensitive Levenshtein distance over one rolling row.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates, size_t limit) {
  const size_t threshold = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(name, c);
    if (d <= threshold) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  // Only the best distance: "beta1" suggests "beta_1", not also "beta_2" one edit further.
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit && scored[i].first == scored[0].first; ++i)
    out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> close = closest_names(name, candidates);
  if (close.empty()) return "";
  std::string out = "did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i > 0) out += i + 1 == close.size() ? " or " : ", ";
    out += '\'';
    out += close[i];
    out += '\'';
  }
  out += '?';
  return out;
}

}  // namespace kiln
