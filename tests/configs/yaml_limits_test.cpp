// Hostile run files end in bounded time and memory with an error naming the file and place:
// nested aliases that would expand to a billion values ("billion laughs"), nesting beyond any
// run's; a map of many keys reads in linear time. The bounds rise through the environment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kiln/configs/yaml_config.h"
#include "tests/test_support/expect_error.h"

namespace kiln::configs {
namespace {

using testing::error_of;
using ::testing::HasSubstr;

// Ten levels, each a list of ten aliases of the level below: 10^10 values once copied out.
std::string billion_laughs() {
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level < 10; ++level) {
    // Appended piece by piece: GCC 12 misreads chains of + on strings (-Wrestrict).
    text.append("a").append(std::to_string(level)).append(": &a").append(std::to_string(level));
    text.append(" [");
    for (int i = 0; i < 10; ++i) text.append(i ? ", *a" : "*a").append(std::to_string(level - 1));
    text.append("]\n");
  }
  return text;
}

TEST(YamlLimits, NestedAliasesAreRefusedBeforeTheyExpand) {
  EXPECT_THAT(error_of([] { parse_yaml(billion_laughs(), "laughs.yaml"); }),
              // The place is the anchored value being copied (yaml-cpp shares its node).
              HasSubstr("laughs.yaml:1:55: the document expands to more than 1000000 values (an "
                        "alias copies its anchor's value wherever it is used); set "
                        "KILN_YAML_MAX_VALUES to allow more"));
}

TEST(YamlLimits, AliasesWithinTheBoundExpand) {
  const Config c = parse_yaml("base: &b {units: 8}\nfirst: *b\nsecond: *b\n", "run.yaml");
  EXPECT_EQ(c["second"]["units"].as_int(), 8);
}

TEST(YamlLimits, DeepNestingIsRefused) {
  const std::string deep = std::string(300, '[') + std::string(300, ']');
  EXPECT_THAT(error_of([&] { parse_yaml(deep, "deep.yaml"); }),
              HasSubstr("nested more than 200 levels deep; set KILN_YAML_MAX_DEPTH"));
}

TEST(YamlLimits, TheEnvironmentRaisesTheBound) {
  setenv("KILN_YAML_MAX_DEPTH", "400", 1);
  const std::string deep = std::string(300, '[') + std::string(300, ']');
  EXPECT_NO_THROW(parse_yaml(deep, "deep.yaml"));
  setenv("KILN_YAML_MAX_DEPTH", "many", 1);
  EXPECT_THAT(error_of([&] { parse_yaml(deep, "deep.yaml"); }),
              HasSubstr("environment variable KILN_YAML_MAX_DEPTH='many': expected a positive "
                        "integer"));
  unsetenv("KILN_YAML_MAX_DEPTH");
}

TEST(YamlLimits, AMapOfManyKeysKeepsItsOrderAndRefusesARepeatedKey) {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text.append("k").append(std::to_string(i)).append(": ").append(std::to_string(i)).append("\n");
  const Config c = parse_yaml(text, "keys.yaml");
  ASSERT_EQ(c.size(), 20000u);
  EXPECT_EQ(c.as_map()[12345].first, "k12345");
  EXPECT_EQ(c["k19999"].as_int(), 19999);
  EXPECT_THAT(error_of([&] { parse_yaml(text + "k7: 1\n", "keys.yaml"); }),
              HasSubstr("keys.yaml:20001:1: duplicate key 'k7'"));
}

}  // namespace
}  // namespace kiln::configs
