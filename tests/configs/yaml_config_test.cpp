// YAML run files into Configs: YAML 1.2 scalar types, file:line:column origins and key paths in
// errors, includes, and --set overrides.
#include "kiln/configs/yaml_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "kiln/framework/core/error.h"

namespace kiln::configs {
namespace {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(YamlConfig, ScalarsTakeYamlCoreTypes) {
  const Config c = parse_yaml(R"(
a: 3
b: 3e-4
c: -2.5
d: true
e: ~
f: relu
g: "3"
h: [1, two, 3.0]
i: .inf
)",
                              "run.yaml");
  EXPECT_EQ(c["a"].as_int(), 3);
  EXPECT_TRUE(c["a"].is_int());
  EXPECT_DOUBLE_EQ(c["b"].as_double(), 3e-4);
  EXPECT_EQ(c["b"].type(), Config::Type::floating);
  EXPECT_DOUBLE_EQ(c["c"].as_double(), -2.5);
  EXPECT_TRUE(c["d"].as_bool());
  EXPECT_TRUE(c["e"].is_null());
  EXPECT_EQ(c["f"].as_string(), "relu");
  EXPECT_EQ(c["g"].as_string(), "3");  // quoted: a string
  EXPECT_EQ(c["h"].at(1).as_string(), "two");
  EXPECT_TRUE(std::isinf(c["i"].as_double()));
  // Map order is the file's.
  EXPECT_EQ(c.as_map().front().first, "a");
}

TEST(YamlConfig, ValuesKnowTheirLineColumnAndPath) {
  const Config c = parse_yaml("model:\n  layers:\n    - Dense: {units: many}\n", "run.yaml");
  const Config& units = c["model"]["layers"].at(0)["Dense"]["units"];
  EXPECT_EQ(units.origin(), "run.yaml:3:22");
  EXPECT_EQ(units.path(), "model.layers[0].Dense.units");
  expect_contains(error_of([&] { units.as_int(); }), "run.yaml:3:22: model.layers[0].Dense.units");
  expect_contains(error_of([&] {
                    c["model"].check_keys({"layer", "inputs"}, "model");
                  }),
                  "unknown key 'layers' for model (did you mean 'layer'?)");
}

TEST(YamlConfig, SyntaxErrorsAndDuplicateKeysPointIntoTheFile) {
  expect_contains(error_of([] { parse_yaml("a: [1, 2\nb: 3\n", "bad.yaml"); }), "bad.yaml:");
  expect_contains(error_of([] { parse_yaml("a: 1\nb: 2\na: 3\n", "dup.yaml"); }),
                  "dup.yaml:3:1: duplicate key 'a'");
  expect_contains(error_of([] { load_yaml_file("/nonexistent/run.yaml"); }),
                  "cannot read the run file /nonexistent/run.yaml");
  // Run files are UTF-8: a stray byte is named at its place.
  expect_contains(error_of([] { parse_yaml("a: 1\nb: x\x96y\n", "latin.yaml"); }),
                  "latin.yaml:2:5: not UTF-8 text (byte 0x96)");
  EXPECT_EQ(parse_yaml("name: caf\xc3\xa9\n", "utf8.yaml")["name"].as_string(), "caf\xc3\xa9");
  expect_contains(error_of([] { parse_yaml(std::string("o\t\0N", 4), "nul.yaml"); }),
                  "nul.yaml:1:3: a control character (byte 0x0)");
  // Found by yaml_fuzzer: yaml-cpp decodes the escape \_ (a no-break space) to one raw byte,
  // which would not read back; it is refused at its place, and the character itself reads.
  expect_contains(error_of([] { parse_yaml("a: 1\nb: \"x\\_y\"\n", "escape.yaml"); }),
                  "escape.yaml:2:4: an escape that does not decode to UTF-8");
  expect_contains(error_of([] { parse_yaml("a: 1\n\"k\\N\": 2\n", "key.yaml"); }),
                  "key.yaml:2:1: an escape that does not decode to UTF-8");
  EXPECT_EQ(parse_yaml("b: \"x\xc2\xa0y\"\n", "nbsp.yaml")["b"].as_string(), "x\xc2\xa0y");
}

// Found by yaml_fuzzer: numbers beyond double's range read as infinity or zero, not a crash.
TEST(YamlConfig, HugeNumbersReadAsYamlReadersDo) {
  const Config c =
      parse_yaml("a: 1e999\nb: -1e999\nc: 1e-999\nd: " + std::string(400, '9') + "\n", "huge.yaml");
  EXPECT_EQ(c["a"].as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(c["b"].as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(c["c"].as_double(), 0.0);
  EXPECT_EQ(c["d"].as_double(), std::numeric_limits<double>::infinity());
}

// Found by yaml_fuzzer: strings a plain scalar cannot hold come back from to_yaml unchanged.
TEST(YamlConfig, StringsRoundTripThroughToYaml) {
  for (const std::string s : {"\r", "a\tb", " lead", "trail ", "", "null", "1e3", "x: y"}) {
    const Config c = Config::map().set("s", Config(s));
    EXPECT_EQ(parse_yaml(to_yaml(c), "again.yaml")["s"].as_string(), s) << to_yaml(c);
  }
}

class YamlFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kiln_yaml_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

TEST_F(YamlFiles, IncludesMergeUnderTheIncludingFile) {
  write("base.yaml",
        "optimizer: {class_name: adam, learning_rate: 0.001}\nmetrics: [accuracy]\n"
        "training: {epochs: 5}\n");
  const std::string run = write("run.yaml",
                                "include: base.yaml\noptimizer: {learning_rate: 0.01}\n"
                                "metrics: [mae]\n");
  const Config c = load_yaml_file(run);
  EXPECT_EQ(c["optimizer"]["class_name"].as_string(), "adam");
  EXPECT_DOUBLE_EQ(c["optimizer"]["learning_rate"].as_double(), 0.01);
  EXPECT_EQ(c["metrics"].as_string_list(), std::vector<std::string>{"mae"});
  EXPECT_EQ(c["training"]["epochs"].as_int(), 5);
  EXPECT_FALSE(c.contains("include"));
  // Where each value came from survives the merge.
  expect_contains(c["training"]["epochs"].origin(), "base.yaml:3:");
  expect_contains(c["optimizer"]["learning_rate"].origin(), "run.yaml:2:");

  write("a.yaml", "include: b.yaml\n");
  write("b.yaml", "include: a.yaml\n");
  expect_contains(error_of([&] { load_yaml_file((dir_ / "a.yaml").string()); }), "a cycle");
  const std::string missing = write("missing.yaml", "include: nothere.yaml\n");
  expect_contains(error_of([&] { load_yaml_file(missing); }), "missing.yaml:1:10: include");
}

TEST(YamlConfig, OverridesSetAnyPath) {
  Config c = parse_yaml(
      "optimizer: {learning_rate: 0.001}\nmodel:\n  layers: [{units: 8}, "
      "{units: 4}]\n",
      "run.yaml");
  apply_override(c, "optimizer.learning_rate=3e-4");
  apply_override(c, "model.layers[1].units=64");
  apply_override(c, "training.epochs=2");
  apply_override(c, "metrics=[accuracy, mae]");
  EXPECT_DOUBLE_EQ(c["optimizer"]["learning_rate"].as_double(), 3e-4);
  EXPECT_EQ(c["optimizer"]["learning_rate"].origin(), "--set");
  EXPECT_EQ(c["model"]["layers"].at(1)["units"].as_int(), 64);
  EXPECT_EQ(c["training"]["epochs"].as_int(), 2);
  EXPECT_EQ(c["metrics"].size(), 2u);
  EXPECT_EQ(c["model"]["layers"].at(1)["units"].path(), "model.layers[1].units");
  expect_contains(error_of([&] { apply_override(c, "model.layers[5].units=1"); }),
                  "index 5 is past the end of a list of 2");
  expect_contains(error_of([&] { apply_override(c, "no_equals_sign"); }), "is not key.path=value");
}

}  // namespace
}  // namespace kiln::configs
