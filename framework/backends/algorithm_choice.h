#pragma once
// Which of a library's algorithms runs a call (cuDNN's convolutions): the library ranks its
// candidates, each with the workspace it needs; the first that runs is remembered and runs the
// call from then on. Free of device types, so the choice is tested without a GPU.
#include <algorithm>
#include <cstddef>
#include <optional>

#include "kiln/framework/core/error.h"

namespace kiln {

struct AlgorithmCandidate {
  int algorithm = 0;
  size_t workspace_bytes = 0;
  bool operator==(const AlgorithmCandidate&) const = default;
};

// What one try of a candidate came to. A failure of any other kind is thrown by the try.
enum class AttemptResult { ran, not_supported, workspace_unavailable };

class AlgorithmChoice {
 public:
  AlgorithmChoice() = default;
  // Starts from a choice made before for the same problem (or none).
  explicit AlgorithmChoice(std::optional<AlgorithmCandidate> remembered) : chosen_(remembered) {}

  // Runs the call once, as attempt(candidate) -> AttemptResult: with the remembered candidate,
  // or, when there is none yet or it does not run this time (its workspace cannot be allocated
  // now), with the first of rank()'s candidates (a range of AlgorithmCandidate, best first) that
  // runs, which is then remembered: a step keeps computing with one algorithm, and so gives the
  // same numbers, from then on. rank() is called only then. Returns whether it chose anew, so
  // the caller can share the choice. When no candidate runs, throws kiln::Error prefixed with
  // describe(), which names the call and its operands.
  template <typename Rank, typename Attempt, typename Describe>
  bool run(Rank&& rank, Attempt&& attempt, Describe&& describe) {
    std::optional<size_t> smallest_unavailable;  // of the workspaces that could not be allocated
    const auto runs = [&](const AlgorithmCandidate& c) {
      switch (attempt(c)) {
        case AttemptResult::ran:
          chosen_ = c;
          return true;
        case AttemptResult::workspace_unavailable:
          smallest_unavailable =
              std::min(c.workspace_bytes, smallest_unavailable.value_or(c.workspace_bytes));
          break;
        case AttemptResult::not_supported:
          break;
      }
      return false;
    };
    const std::optional<AlgorithmCandidate> remembered = chosen_;
    if (remembered && runs(*remembered)) return false;
    for (const AlgorithmCandidate& c : rank()) {
      if (remembered && c.algorithm == remembered->algorithm) continue;  // just tried
      if (runs(c)) return true;
    }
    if (smallest_unavailable)
      throw Error(detail::concat(describe(),
                                 ": no algorithm's workspace could be allocated (the smallest "
                                 "asked for ",
                                 *smallest_unavailable, " bytes)"));
    throw Error(detail::concat(describe(), ": no algorithm takes these operands"));
  }

  const std::optional<AlgorithmCandidate>& chosen() const { return chosen_; }

 private:
  std::optional<AlgorithmCandidate> chosen_;
};

}  // namespace kiln
