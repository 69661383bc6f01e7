// read_csv: types, header, column selection, quoting, missing values and located errors.
#include <gmock/gmock.h>

#include <fstream>

#include "kiln/datasets/csv_file.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

std::string write_csv(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("data.csv");
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(Csv, ReadsNamedColumnsWithTheirDTypes) {
  const TempDir dir;
  const std::string path = write_csv(dir, "x,label,w\n1.5,3,0.25\n-2,4,1e-3\n");
  const CsvTable t = read_csv(path, {.column_dtypes = {{"label", DType::i64}, {"w", DType::f64}}});
  EXPECT_EQ(t.names, (std::vector<std::string>{"x", "label", "w"}));
  EXPECT_EQ(t.column("x").dtype(), DType::f32);
  EXPECT_EQ(t.column("x").to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(t.column("label").dtype(), DType::i64);
  EXPECT_EQ(t.column("label").to_vector<int64_t>(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(t.column("w").dtype(), DType::f64);
  EXPECT_EQ(t.column("w").to_vector<double>(), (std::vector<double>{0.25, 1e-3}));
}

TEST(Csv, SelectsColumnsInTheGivenOrderAndSkipsTextColumns) {
  const TempDir dir;
  const std::string path = write_csv(dir, "name,a,b\nfoo,1,2\nbar,3,4\n");
  const CsvTable t = read_csv(path, {.select_columns = {"b", "a"}, .default_dtype = DType::i32});
  EXPECT_EQ(t.names, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(t.columns[0].to_vector<int32_t>(), (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(t.columns[1].to_vector<int32_t>(), (std::vector<int32_t>{1, 3}));
}

TEST(Csv, WithoutAHeaderColumnsAreNumbered) {
  const TempDir dir;
  const std::string path = write_csv(dir, "1;2\n3;4\n");
  const CsvTable t = read_csv(path, {.header = false, .delimiter = ';'});
  EXPECT_EQ(t.names, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(t.column("1").to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(Csv, QuotedFieldsHoldDelimitersQuotesAndNewlines) {
  const TempDir dir;
  const std::string path =
      write_csv(dir, "\"the, \"\"first\"\"\nname\",v\r\n\"a,b\",\"1\"\r\n\"c\n\"\"d\"\"\",2\r\n");
  const CsvTable t = read_csv(path, {.select_columns = {"v"}});
  EXPECT_EQ(t.column("v").to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_THAT(error_of([&] { (void)read_csv(path); }),
              HasSubstr(path + ":3:1 (column 'the, \"first\"\nname'): cannot parse 'a,b'"));
}

TEST(Csv, ErrorLinesCountNewlinesInsideQuotedFields) {
  const TempDir dir;
  const std::string path = write_csv(dir, "s,v\n\"x\ny\",1\n\"z\",oops\n");
  EXPECT_THAT(error_of([&] { (void)read_csv(path, {.select_columns = {"v"}}); }),
              HasSubstr(path + ":4:2 (column 'v'): cannot parse 'oops' as float32"));
}

TEST(Csv, MissingValuesNeedADefault) {
  const TempDir dir;
  const std::string path = write_csv(dir, "a,b\n1,\n, 2 \n");
  const CsvTable t = read_csv(path, {.missing_value = -1.0});
  EXPECT_EQ(t.column("a").to_vector<float>(), (std::vector<float>{1, -1}));
  EXPECT_EQ(t.column("b").to_vector<float>(), (std::vector<float>{-1, 2}));
  EXPECT_THAT(error_of([&] { (void)read_csv(path); }),
              HasSubstr(path + ":2:2 (column 'b'): empty field; set CsvOptions::missing_value"));
}

// An integer column is filled only with a whole number it can hold: NaN or 2.7 are errors.
TEST(Csv, IntegerColumnsRefuseMissingValuesThatAreNotTheirValues) {
  const TempDir dir;
  const std::string path = write_csv(dir, "a,n\n1,\n");
  const std::map<std::string, DType> ints{{"n", DType::i32}};
  EXPECT_EQ(read_csv(path, {.column_dtypes = ints, .missing_value = -1.0})
                .column("n")
                .to_vector<int32_t>(),
            (std::vector<int32_t>{-1}));
  for (const double fill : {std::nan(""), 2.7, 1e12})
    EXPECT_THAT(
        error_of([&] { (void)read_csv(path, {.column_dtypes = ints, .missing_value = fill}); }),
        HasSubstr(path + ":2:2 (column 'n'): empty field, and missing_value"));
}

TEST(Csv, BadNumbersNameLineColumnAndText) {
  const TempDir dir;
  const std::string path = write_csv(dir, "a,n\n1,2\n3,2.5\n");
  EXPECT_THAT(error_of([&] {
                (void)read_csv(path, {.column_dtypes = {{"n", DType::i64}}});
              }),
              HasSubstr(path + ":3:2 (column 'n'): cannot parse '2.5' as int64"));
  const std::string big = write_csv(dir, "n\n3000000000\n");
  EXPECT_THAT(error_of([&] { (void)read_csv(big, {.default_dtype = DType::i32}); }),
              HasSubstr(big + ":2:1 (column 'n'): '3000000000' is out of range for int32"));
}

TEST(Csv, WrongFieldCountsAndUnclosedQuotesAreErrors) {
  const TempDir dir;
  const std::string ragged = write_csv(dir, "a,b\n1,2\n\n3\n");
  EXPECT_THAT(error_of([&] { (void)read_csv(ragged); }),
              HasSubstr(ragged + ":4: expected 2 fields (as in the header), got 1"));
  const std::string unclosed = write_csv(dir, "a\n\"1\n2\n");
  EXPECT_THAT(error_of([&] { (void)read_csv(unclosed); }),
              HasSubstr(unclosed + ":2:1: quoted field never closed"));
}

TEST(Csv, UnknownColumnsAndDTypesAreErrors) {
  const TempDir dir;
  const std::string path = write_csv(dir, "width,height\n1,2\n");
  EXPECT_THAT(
      error_of([&] { (void)read_csv(path, {.select_columns = {"widht"}}); }),
      HasSubstr(path + ": no column 'widht'; did you mean 'width'? (columns: width, height)"));
  EXPECT_THAT(error_of([&] {
                (void)read_csv(path, {.column_dtypes = {{"h", DType::f32}}});
              }),
              HasSubstr("no column 'h'"));
  EXPECT_THAT(error_of([&] { (void)read_csv(path, {.default_dtype = DType::boolean}); }),
              HasSubstr("column 'width' cannot be read as bool"));
  EXPECT_THAT(error_of([&] { (void)read_csv(dir.file("none.csv")); }),
              HasSubstr("cannot open CSV file " + dir.file("none.csv")));
}

TEST(Csv, HeaderOnlyGivesEmptyColumns) {
  const TempDir dir;
  const CsvTable t = read_csv(write_csv(dir, "a,b\n"));
  EXPECT_EQ(t.columns[0].shape(), Shape({0}));
}

TEST(Csv, ColumnsFeedADataset) {
  const TempDir dir;
  const CsvTable t =
      read_csv(write_csv(dir, "x,y\n1,0\n2,1\n3,0\n"), {.column_dtypes = {{"y", DType::i64}}});
  const Dataset ds = Dataset::from_tensor_slices(t.columns).batch(2);
  EXPECT_EQ(ds.cardinality(), 2);
  EXPECT_EQ(ds.iterator().next()->at(1).to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace kiln::datasets::testing
