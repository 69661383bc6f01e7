// Field tables: one list per options struct reads a config over the struct's defaults, refuses
// unknown keys, and writes the options back; a value read back equals the one written.
#include "kiln/framework/core/config_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

struct Options {
  std::string monitor = "val_loss";
  double factor = 0.1;
  int patience = 10;
  bool verbose = false;
  std::optional<double> baseline = std::nullopt;
};

const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      field("monitor", &Options::monitor), field("factor", &Options::factor),
      field("patience", &Options::patience), field("verbose", &Options::verbose),
      field("baseline", &Options::baseline)};
  return table;
}

TEST(ConfigFields, AbsentAndNullKeysKeepTheStructsDefaults) {
  const Options o = read_fields(
      Config::from_json(R"({"patience": 3, "baseline": 0.5, "monitor": null})"), fields(), "T");
  EXPECT_EQ(o.monitor, "val_loss");
  EXPECT_EQ(o.factor, 0.1);
  EXPECT_EQ(o.patience, 3);
  EXPECT_EQ(o.baseline, 0.5);
}

TEST(ConfigFields, UnknownKeysAreRefusedUnlessExtra) {
  testing::expect_error(
      [] { read_fields(Config::from_json(R"({"patiense": 3})"), fields(), "ReduceLROnPlateau"); },
      "unknown key 'patiense' for ReduceLROnPlateau (did you mean 'patience'?)");
  const Options o = read_fields(Config::from_json(R"({"filepath": "a.h5", "verbose": true})"),
                                fields(), "T", {.factor = 0.5}, {"filepath"});
  EXPECT_TRUE(o.verbose);
  EXPECT_EQ(o.factor, 0.5);
}

TEST(ConfigFields, WrongTypesAreErrors) {
  EXPECT_THROW(read_fields(Config::from_json(R"({"patience": "three"})"), fields(), "T"), Error);
}

TEST(ConfigFields, WrittenOptionsReadBackEqual) {
  const Options o{.monitor = "loss", .factor = 0.25, .patience = 2, .verbose = true};
  const Config written = write_fields(o, fields());
  EXPECT_TRUE(written["baseline"].is_null());
  const Options back = read_fields(written, fields(), "T");
  EXPECT_EQ(back.monitor, "loss");
  EXPECT_EQ(back.factor, 0.25);
  EXPECT_EQ(back.patience, 2);
  EXPECT_TRUE(back.verbose);
  EXPECT_EQ(back.baseline, std::nullopt);
}

}  // namespace
}  // namespace kiln
