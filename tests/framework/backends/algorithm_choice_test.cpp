// The choice among a library's ranked algorithms that the cuDNN convolutions make on their first
// run: the first candidate that runs is taken and remembered, those not supported or whose
// workspace cannot be allocated are passed over, and an error names the call when none runs.
#include "kiln/framework/backends/algorithm_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using testing::expect_error;

// A stand-in library: candidates in ranked order, what trying each comes to, and a log of the
// tries and rankings asked for.
struct FakeLibrary {
  std::vector<AlgorithmCandidate> candidates;
  std::map<int, AttemptResult> results;  // by algorithm; those not named run
  std::vector<int> tried;
  int rankings = 0;

  auto rank() {
    return [this] {
      ++rankings;
      return candidates;
    };
  }
  auto attempt() {
    return [this](const AlgorithmCandidate& c) {
      tried.push_back(c.algorithm);
      const auto it = results.find(c.algorithm);
      return it == results.end() ? AttemptResult::ran : it->second;
    };
  }
  bool run(AlgorithmChoice& choice) {
    return choice.run(rank(), attempt(), [] { return std::string("conv2d with input [1, 2]"); });
  }
};

TEST(AlgorithmChoice, TakesTheFirstCandidateThatRuns) {
  FakeLibrary lib{{{7, 0}, {3, 64}}};
  AlgorithmChoice choice;
  EXPECT_TRUE(lib.run(choice));
  EXPECT_THAT(lib.tried, ElementsAre(7));
  EXPECT_EQ(choice.chosen(), (AlgorithmCandidate{7, 0}));
}

TEST(AlgorithmChoice, PassesOverACandidateNotSupported) {
  FakeLibrary lib{{{7, 0}, {3, 64}}, {{7, AttemptResult::not_supported}}};
  AlgorithmChoice choice;
  EXPECT_TRUE(lib.run(choice));
  EXPECT_THAT(lib.tried, ElementsAre(7, 3));
  EXPECT_EQ(choice.chosen(), (AlgorithmCandidate{3, 64}));
}

TEST(AlgorithmChoice, PassesOverACandidateWhoseWorkspaceIsUnavailable) {
  FakeLibrary lib{{{1, 1 << 30}, {2, 4096}, {5, 0}}, {{1, AttemptResult::workspace_unavailable}}};
  AlgorithmChoice choice;
  EXPECT_TRUE(lib.run(choice));
  EXPECT_THAT(lib.tried, ElementsAre(1, 2));
  EXPECT_EQ(choice.chosen(), (AlgorithmCandidate{2, 4096}));
}

TEST(AlgorithmChoice, ReusesTheRememberedChoiceWithoutRankingAgain) {
  FakeLibrary lib{{{7, 0}, {3, 64}}, {{7, AttemptResult::not_supported}}};
  AlgorithmChoice choice;
  EXPECT_TRUE(lib.run(choice));
  EXPECT_FALSE(lib.run(choice));
  EXPECT_FALSE(lib.run(choice));
  EXPECT_EQ(lib.rankings, 1);
  EXPECT_THAT(lib.tried, ElementsAre(7, 3, 3, 3));
}

TEST(AlgorithmChoice, StartsFromAChoiceMadeBefore) {
  FakeLibrary lib{{{7, 0}, {3, 64}}};
  AlgorithmChoice choice(AlgorithmCandidate{3, 64});
  EXPECT_FALSE(lib.run(choice));
  EXPECT_EQ(lib.rankings, 0);
  EXPECT_THAT(lib.tried, ElementsAre(3));
}

TEST(AlgorithmChoice, RanksAgainWhenTheRememberedWorkspaceIsUnavailable) {
  FakeLibrary lib{{{7, 256}, {3, 64}, {4, 0}}};
  AlgorithmChoice choice;
  EXPECT_TRUE(lib.run(choice));
  lib.results[7] = AttemptResult::workspace_unavailable;
  EXPECT_TRUE(lib.run(choice));
  // The remembered candidate is not tried twice in one run.
  EXPECT_THAT(lib.tried, ElementsAre(7, 7, 3));
  EXPECT_EQ(choice.chosen(), (AlgorithmCandidate{3, 64}));
}

TEST(AlgorithmChoice, NamesTheCallAndTheSmallestWorkspaceWhenNoneCanBeAllocated) {
  constexpr auto unavailable = AttemptResult::workspace_unavailable;
  FakeLibrary lib{{{1, 1 << 20}, {2, 4096}, {5, 1 << 16}},
                  {{1, unavailable}, {2, unavailable}, {5, AttemptResult::not_supported}}};
  AlgorithmChoice choice;
  expect_error([&] { lib.run(choice); },
               "conv2d with input [1, 2]: no algorithm's workspace could be allocated (the "
               "smallest asked for 4096 bytes)");
  EXPECT_THAT(lib.tried, ElementsAre(1, 2, 5));
  EXPECT_EQ(choice.chosen(), std::nullopt);
}

TEST(AlgorithmChoice, NamesTheCallWhenNoCandidateTakesTheOperands) {
  FakeLibrary lib{{{1, 0}}, {{1, AttemptResult::not_supported}}};
  AlgorithmChoice choice;
  expect_error([&] { lib.run(choice); },
               "conv2d with input [1, 2]: no algorithm takes these operands");
  FakeLibrary none;
  expect_error([&] { none.run(choice); },
               "conv2d with input [1, 2]: no algorithm takes these operands");
}

TEST(AlgorithmChoice, AFailingTryEndsTheRunAndChoosesNothing) {
  FakeLibrary lib{{{7, 0}, {3, 64}}};
  AlgorithmChoice choice;
  const auto failing = [](const AlgorithmCandidate&) -> AttemptResult {
    throw Error("cudnnConvolutionForward failed");
  };
  expect_error([&] { choice.run(lib.rank(), failing, [] { return std::string(); }); },
               "cudnnConvolutionForward failed");
  EXPECT_EQ(choice.chosen(), std::nullopt);
  EXPECT_TRUE(lib.run(choice));
  EXPECT_THAT(lib.tried, ElementsAre(7));
}

}  // namespace
}  // namespace kiln
