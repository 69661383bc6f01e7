// CSV files as training examples (datasets/csv/csv_source.h): the schema scan's types, string
// vocabularies from the training rows, labels, globs over several files, bad rows refused with
// file:line:column or skipped identically on every pass, and records that cross the reader's
// blocks.
#include <gmock/gmock.h>

#include <fstream>

#include "kiln/datasets/csv/csv_source.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<Element> all_of(const Dataset& ds) {
  std::vector<Element> out;
  for (const Element& e : ds) out.push_back(e);
  return out;
}

TEST(CsvSource, InfersTypesAndOneHotsStringFeaturesOverTheTrainingRows) {
  const TempDir dir;
  const std::string path = write(dir, "pets.csv",
                                 "weight,kind,age,label\n"
                                 "1.5,cat,3,yes\n"
                                 "20,dog,5,no\n"
                                 "4,cat,1,yes\n"
                                 "7,bird,2,no\n");
  const CsvSourceOptions options{.paths = {path}, .label = "label"};
  // A seed that puts the first three rows in training and "bird", the fourth, in validation.
  CsvSplit split{.validation_split = 0.5};
  while (split.validates(0) || split.validates(1) || split.validates(2) || !split.validates(3))
    ++split.seed;
  const CsvSchema schema = scan_csv(options, split);
  EXPECT_EQ(schema.rows, 4);
  EXPECT_EQ(schema.training_rows, 3);
  EXPECT_EQ(schema.validation_rows, 1);
  ASSERT_EQ(schema.features.size(), 3u);
  EXPECT_EQ(schema.features[0].type, CsvType::number);
  EXPECT_EQ(schema.features[1].type, CsvType::string);
  EXPECT_EQ(schema.features[1].vocabulary, (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(schema.features[2].type, CsvType::integer);
  EXPECT_EQ(schema.labels[0].vocabulary, (std::vector<std::string>{"no", "yes"}));
  EXPECT_EQ(schema.label_classes, 2);
  EXPECT_EQ(schema.feature_width(), 4);  // weight, cat, dog, age

  const std::vector<Element> rows = all_of(csv_dataset(options, schema));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1][0].to_vector<float>(), (std::vector<float>{20, 0, 1, 5}));
  EXPECT_EQ(rows[1][1].dtype(), DType::i32);
  EXPECT_EQ(rows[1][1].item<int32_t>(), 0);  // "no"
  EXPECT_EQ(rows[0][1].item<int32_t>(), 1);  // "yes"
  // A value the training rows never had: zeros in its block.
  EXPECT_EQ(rows[3][0].to_vector<float>(), (std::vector<float>{7, 0, 0, 2}));
  // A subset reads only its rows, again on a later pass.
  const Dataset validation = csv_dataset(options, schema, split, CsvSubset::validation);
  EXPECT_EQ(validation.cardinality(), 1);
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<Element> held_out = all_of(validation);
    ASSERT_EQ(held_out.size(), 1u);
    EXPECT_EQ(held_out[0][0].to_vector<float>(), (std::vector<float>{7, 0, 0, 2}));
  }
  EXPECT_EQ(all_of(csv_dataset(options, schema, split, CsvSubset::training)).size(), 3u);
}

// The split is drawn per row from the seed: about the asked fraction validates, spread over the
// file, and a limit keeps only the first rows.
TEST(CsvSource, SplitsEachRowByTheSeed) {
  const CsvSplit split{.validation_split = 0.2, .seed = 42};
  int64_t validating = 0, first_half = 0;
  for (int64_t row = 0; row < 10000; ++row)
    if (split.validates(row)) {
      ++validating;
      first_half += row < 5000;
    }
  EXPECT_NEAR(static_cast<double>(validating), 2000, 150);
  EXPECT_NEAR(static_cast<double>(first_half), 1000, 120);
  const TempDir dir;
  const std::string path = write(dir, "t.csv", "x\n1\n2\n3\n4\n5\n");
  const CsvSchema schema = scan_csv({.paths = {path}}, {.limit = 3});
  EXPECT_EQ(schema.training_rows, 3);
  EXPECT_EQ(all_of(csv_dataset({.paths = {path}}, schema, {.limit = 3})).size(), 3u);
}

TEST(CsvSource, IntAndFloatLabelsAndDeclaredTypes) {
  const TempDir dir;
  const std::string path = write(dir, "t.csv", "a,b,y\n1,2,0\n3,4,2\n");
  const CsvSchema ints = scan_csv({.paths = {path}, .label = "y"});
  EXPECT_EQ(ints.label_classes, 3);
  EXPECT_EQ(all_of(csv_dataset({.paths = {path}, .label = "y"}, ints))[1][1].item<int32_t>(), 2);
  const CsvSourceOptions as_float{
      .paths = {path}, .label = "y", .column_types = {{"y", CsvType::number}}};
  const CsvSchema floats = scan_csv(as_float);
  EXPECT_EQ(floats.label_classes, 0);
  const Element row = all_of(csv_dataset(as_float, floats))[1];
  EXPECT_EQ(row[1].dtype(), DType::f32);
  EXPECT_EQ(row[1].item<float>(), 2.0f);
  // A declared string column of digits is one-hot.
  const CsvSourceOptions as_string{
      .paths = {path}, .label = "y", .column_types = {{"a", CsvType::string}}};
  EXPECT_EQ(scan_csv(as_string).feature_width(), 3);
}

TEST(CsvSource, GlobsReadEveryFileInOrderSkippingRowsAndHeaders) {
  const TempDir dir;
  write(dir, "part-1.csv", "# exported\nx,y\n1,0\n2,1\n");
  write(dir, "part-2.csv", "# exported\nx,y\n3,1\n");
  const CsvSourceOptions options{
      .paths = expand_paths({dir.file("part-*.csv")}), .skip_rows = 1, .label = "y"};
  ASSERT_EQ(options.paths.size(), 2u);
  const CsvSchema schema = scan_csv(options);
  EXPECT_EQ(schema.rows, 3);
  std::vector<float> x;
  for (const Element& e : csv_dataset(options, schema)) x.push_back(e[0].item<float>());
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3}));
  EXPECT_THAT(error_of([&] { (void)expand_paths({dir.file("none-*.csv")}); }),
              HasSubstr("no file matches '" + dir.file("none-*.csv") + "'"));
  // Files whose headers differ are refused.
  write(dir, "part-3.csv", "# exported\nx,z\n4,0\n");
  const CsvSourceOptions three{
      .paths = expand_paths({dir.file("part-*.csv")}), .skip_rows = 1, .label = "y"};
  EXPECT_THAT(error_of([&] { (void)scan_csv(three); }),
              HasSubstr("part-3.csv:2: header (x, z) differs from the first file's (x, y)"));
}

TEST(CsvSource, BadRowsAreRefusedWithTheirPlaceOrSkippedOnEveryPass) {
  const TempDir dir;
  const std::string path = write(dir, "bad.csv", "a,b,y\n1,2,0\n3,,1\n5,6\n7,x,1\n8,9,0\n");
  const CsvSourceOptions strict{
      .paths = {path}, .label = "y", .column_types = {{"b", CsvType::number}}};
  EXPECT_THAT(error_of([&] { (void)scan_csv(strict); }),
              HasSubstr(path + ":3:2 (column 'b'): empty field"));
  CsvSourceOptions filled = strict;
  filled.column_defaults = {{"b", "-1"}};
  EXPECT_THAT(error_of([&] { (void)scan_csv(filled); }),
              HasSubstr(path + ":4: expected 3 fields, got 2"));
  CsvSourceOptions skipping = filled;
  skipping.skip_bad_rows = true;
  const CsvSchema schema = scan_csv(skipping);
  EXPECT_EQ(schema.rows, 3);     // lines 2, 3 (filled) and 6
  EXPECT_EQ(schema.skipped, 2);  // the short row and "x" in a float column
  std::vector<float> b;
  for (int pass = 0; pass < 2; ++pass)
    for (const Element& e : csv_dataset(skipping, schema)) b.push_back(e[0].to_vector<float>()[1]);
  EXPECT_EQ(b, (std::vector<float>{2, -1, 9, 2, -1, 9}));
}

TEST(CsvSource, UnknownColumnsAreNamedWithTheClosest) {
  const TempDir dir;
  const std::string path = write(dir, "t.csv", "petal_length,species\n1,a\n");
  EXPECT_THAT(error_of([&] { (void)scan_csv({.paths = {path}, .label = "specie"}); }),
              HasSubstr(path + ": no column 'specie'; did you mean 'species'?"));
}

// A quoted field with newlines across the reader's 1 MiB blocks, and many rows.
TEST(CsvSource, RecordsCrossTheReadersBlocks) {
  const TempDir dir;
  std::string text = "note,v\n";
  const std::string long_note(1000, 'n');
  for (int i = 0; i < 3000; ++i)
    text += "\"" + long_note + "\n\"\"" + std::to_string(i) + "\"\"\"," + std::to_string(i) + "\n";
  const std::string path = write(dir, "big.csv", text);
  const CsvSourceOptions options{.paths = {path}, .select_columns = {"v"}};
  const CsvSchema schema = scan_csv(options);
  EXPECT_EQ(schema.rows, 3000);
  int64_t sum = 0;
  for (const Element& e : csv_dataset(options, schema))
    sum += static_cast<int64_t>(e[0].item<float>());
  EXPECT_EQ(sum, 3000 * 2999 / 2);
}

}  // namespace
}  // namespace kiln::datasets::testing
