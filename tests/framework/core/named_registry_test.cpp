// NamedRegistry, the one registry behind layers, losses, optimizers, metrics, activations, Lambda
// functions, initializers and regularizers: aliases, folded names, one wording for unknown and
// duplicate names, unlisted entries, and registrations racing lookups.
#include "kiln/framework/core/named_registry.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

std::string lower(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

TEST(NamedRegistry, AliasesReachOneValueAndAllAreListed) {
  NamedRegistry<int> r("loss");
  r.add("MeanSquaredError", 1, {"mse", "MSE"});
  r.add("Huber", 2);
  EXPECT_EQ(r.get("mse"), 1);
  EXPECT_EQ(r.get("MSE"), 1);
  EXPECT_EQ(r.get("Huber"), 2);
  EXPECT_FALSE(r.find("huber").has_value());
  EXPECT_EQ(r.names(), (std::vector<std::string>{"Huber", "MSE", "MeanSquaredError", "mse"}));
}

TEST(NamedRegistry, FoldedNamesCompareAndSuggestFolded) {
  NamedRegistry<int> r("optimizer", lower);
  r.add("Adam", 1);
  EXPECT_EQ(r.get("ADAM"), 1);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"adam"}));
  testing::expect_error([&] { r.get("AdaM2"); }, "unknown optimizer 'AdaM2'; did you mean 'adam'?");
  testing::expect_error([&] { r.add("adam", 2); }, "optimizer 'adam' is already registered");
}

TEST(NamedRegistry, UnknownNamesSayWhereWhatIsCloseAndHowToRegister) {
  NamedRegistry<int> r("layer class", nullptr, "custom layers register with register_layer");
  r.add("Dense", 1);
  EXPECT_EQ(r.unknown("Dens", "run.yaml:3:5: "),
            "run.yaml:3:5: unknown layer class 'Dens'; did you mean 'Dense'?; custom layers "
            "register with register_layer");
  EXPECT_EQ(r.unknown("Conv", ""),
            "unknown layer class 'Conv'; custom layers register with "
            "register_layer");
}

TEST(NamedRegistry, AnAliasTakenRefusesTheWholeRegistration) {
  NamedRegistry<int> r("metric");
  r.add("Accuracy", 1, {"acc"});
  testing::expect_error([&] { r.add("Accurate", 2, {"acc"}); },
                        "metric 'acc' is already registered");
  EXPECT_FALSE(r.contains("Accurate"));
}

TEST(NamedRegistry, UnlistedNamesAreFoundButNeverOffered) {
  NamedRegistry<int> r("metric");
  r.add("Mean", 1);
  r.add("MeanMetricWrapper", 2, {}, NamedRegistry<int>::Listed::no);
  EXPECT_EQ(r.get("MeanMetricWrapper"), 2);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"Mean"}));
  EXPECT_EQ(r.names_if([](int v) { return v == 2; }), std::vector<std::string>{});
}

// Registrations from several threads while others look names up: every name lands once.
TEST(NamedRegistry, RegistrationsRaceLookups) {
  NamedRegistry<int> r("activation");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < 200; ++i) {
        // Appended piece by piece: gcc 12 warns falsely on "f" + std::string.
        std::string name = "f";
        name.append(std::to_string(t)).append("_").append(std::to_string(i));
        r.add(name, i);
        (void)r.find("f0_0");
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(r.names().size(), 800u);
  EXPECT_EQ(r.get("f3_199"), 199);
}

}  // namespace
}  // namespace kiln
