// Field tables: one list per options struct reads a config over the struct's defaults, refuses
// unknown keys, and writes the options back; a value read back equals the one written.
#include "kiln/framework/core/config_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

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

// A required field (a schedule's decay_steps, a Dense layer's units) has no default: absent or null
// is an error naming it, and a list of floats reads and writes as one.
TEST(ConfigFields, RequiredFieldsMustBeGiven) {
  struct Schedule {
    double decay_steps = 0;
    std::vector<double> values;
  };
  const FieldTable<Schedule> table{required(field("decay_steps", &Schedule::decay_steps)),
                                   field("values", &Schedule::values)};
  testing::expect_error([&] { read_fields(Config::from_json(R"({"values": [1]})"), table, "S"); },
                        "missing key 'decay_steps'");
  testing::expect_error(
      [&] { read_fields(Config::from_json(R"({"decay_steps": null})"), table, "S"); },
      "S: 'decay_steps' is required and cannot be null");
  const Schedule s =
      read_fields(Config::from_json(R"({"decay_steps": 10, "values": [0.5, 0.25]})"), table, "S");
  EXPECT_EQ(s.decay_steps, 10);
  EXPECT_EQ(s.values, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(write_fields(s, table).to_json(), R"({"decay_steps": 10.0, "values": [0.5, 0.25]})");
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

// The other kinds of field: a codec of its own, a value only kiln's (data_format), a key only null
// may have, one read but not written, one accepted and ignored.
struct Layered {
  int64_t out = 0;  // 0: none, written as null
};

const FieldTable<Layered>& layered_fields() {
  static const FieldTable<Layered> table{
      field(
          "out", &Layered::out,
          [](const Config& v) { return v.is_list() ? v.at(0).as_int() : v.as_int(); },
          [](int64_t out) { return out > 0 ? Config(out) : Config(); }),
      fixed_field<Layered>("data_format", Config("channels_last"), "transpose the inputs"),
      null_field<Layered>("kernel_constraint"), read_only(null_field<Layered>("lora_rank")),
      ignored_field<Layered>("lora_alpha")};
  return table;
}

TEST(ConfigFields, CodecsReadWhatTheyWrite) {
  EXPECT_EQ(read_fields(Config::from_json(R"({"out": [7]})"), layered_fields(), "T").out, 7);
  const Config written = write_fields(Layered{.out = 5}, layered_fields());
  EXPECT_EQ(written["out"].as_int(), 5);
  EXPECT_TRUE(write_fields(Layered{}, layered_fields())["out"].is_null());
  EXPECT_EQ(read_fields(written, layered_fields(), "T").out, 5);
}

TEST(ConfigFields, FixedAndNullKeysAreWrittenAsKerasWritesThemAndRefuseOtherValues) {
  const Config written = write_fields(Layered{}, layered_fields());
  EXPECT_EQ(written["data_format"].as_string(), "channels_last");
  EXPECT_TRUE(written["kernel_constraint"].is_null());
  testing::expect_error(
      [] {
        read_fields(Config::from_json(R"({"data_format": "channels_first"})"), layered_fields(),
                    "Conv2D");
      },
      "Conv2D: 'data_format' = \"channels_first\" is not supported by kiln; only "
      "\"channels_last\" is (transpose the inputs)");
  testing::expect_error(
      [] {
        read_fields(Config::from_json(R"({"kernel_constraint": {"class_name": "NonNeg"}})"),
                    layered_fields(), "Dense");
      },
      "Dense: 'kernel_constraint' is not supported by kiln");
}

TEST(ConfigFields, ReadOnlyAndIgnoredKeysAreAcceptedButNotWritten) {
  const Config written = write_fields(Layered{}, layered_fields());
  EXPECT_FALSE(written.contains("lora_rank"));
  EXPECT_FALSE(written.contains("lora_alpha"));
  EXPECT_NO_THROW(read_fields(Config::from_json(R"({"lora_rank": null, "lora_alpha": 16})"),
                              layered_fields(), "Dense"));
  EXPECT_THROW(read_fields(Config::from_json(R"({"lora_rank": 4})"), layered_fields(), "Dense"),
               Error);
}

TEST(ConfigFields, NullableFieldsReadNullAsAValue) {
  struct Mode {
    std::string merge = "concat";  // "": Keras's None
  };
  const FieldTable<Mode> table{nullable(field(
      "merge", &Mode::merge, [](const Config& v) { return v.is_null() ? "" : v.as_string(); },
      [](const std::string& m) { return m.empty() ? Config() : Config(m); }))};
  EXPECT_EQ(read_fields(Config::from_json(R"({"merge": null})"), table, "T").merge, "");
  EXPECT_EQ(read_fields(Config::map(), table, "T").merge, "concat");
  EXPECT_TRUE(write_fields(Mode{.merge = ""}, table)["merge"].is_null());
}

TEST(ConfigFields, IgnoredFieldsMayBeWrittenAsAFixedValue) {
  const FieldTable<Layered> table{ignored_field<Layered>("unroll", Config(false))};
  EXPECT_NO_THROW(read_fields(Config::from_json(R"({"unroll": true})"), table, "LSTM"));
  EXPECT_FALSE(write_fields(Layered{}, table)["unroll"].as_bool());
}

}  // namespace
}  // namespace kiln
