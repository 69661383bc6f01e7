#pragma once
// CSV files as training examples: each good row of the files, read in order, becomes
// (features, label), streamed from disk on every pass, so a file larger than memory trains.
//
// One scan before training reads every file once and learns the schema:
// - the columns, from the header or column_names;
// - each column's type, declared or inferred (int when every field is an integer, float when
//   every field is a number, else string);
// - the rows, and the values of every string column.
//
// Each bad row is found by the scan, before the first step: a wrong number of fields, an empty
// field with no default, or a field that does not parse as its declared type. It is refused,
// naming file:line:column, or skipped and counted when skip_bad_rows is set. Every pass skips
// the same rows.
//
// Features are one float32 vector per row, the selected columns in order. A number column gives
// its value. A string column gives a one-hot block over its vocabulary, the values seen in the
// training rows, sorted; a value the training rows never had gives zeros.
//
// The label is an int32 class for an int column (its value) or a string column (its index among
// the sorted class names), and a float32 value for a float column.
//
// The vocabularies are the run's: saved beside it after training and given back to the scans of
// later runs over its model (use_csv_vocabularies).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"

namespace kiln::datasets {

enum class CsvType { integer, number, string };

// "int", "float", "string"; anything else is refused naming the valid names.
CsvType csv_type(const std::string& name);
const char* csv_type_name(CsvType type);

// Members have initializers so that designated initializers may name any subset of them.
struct CsvSourceOptions {
  std::vector<std::string> paths = {};  // read in this order; see expand_paths
  // The first record (after skip_rows) names the columns. column_names, when given, names them
  // instead (a header row is then still skipped).
  bool header = true;
  std::vector<std::string> column_names = {};
  int64_t skip_rows = 0;  // records skipped at the start of each file, before the header
  char delimiter = ',';
  std::string label = {};                        // the label column; empty for none
  std::vector<std::string> select_columns = {};  // features, in this order; default all but label
  std::map<std::string, CsvType> column_types = {};
  std::map<std::string, std::string> column_defaults = {};  // the text an empty field reads as
  bool skip_bad_rows = false;
};

// The position of column `name` among `names`, or an error naming `path` and the closest names.
size_t column_index(const std::vector<std::string>& names, const std::string& name,
                    const std::string& path);

// Paths and globs ("data/*.csv") as files: each glob's matches sorted; a pattern that matches
// nothing is an error naming it.
std::vector<std::string> expand_paths(const std::vector<std::string>& patterns);

struct CsvColumn {
  std::string name;
  size_t field = 0;  // its position in a record
  CsvType type = CsvType::number;
  // String columns: the values of a feature column in the training rows, or every value of the
  // label column, sorted.
  std::vector<std::string> vocabulary;
};

struct CsvSchema {
  std::vector<std::string> names;  // every column, in file order
  std::vector<CsvColumn> features;
  std::vector<CsvColumn> labels;  // none or one
  int64_t rows = 0;               // good rows
  int64_t training_rows = 0;      // of them, within the limit and not validating
  int64_t validation_rows = 0;
  int64_t skipped = 0;        // bad rows skipped
  int64_t label_classes = 0;  // an int label's largest value + 1, a string label's names

  // Floats in a row's feature vector.
  int64_t feature_width() const;
};

// Which rows train and which validate: of the first `limit` good rows (all when 0), each is in
// the validation split with probability validation_split, drawn from (seed, row) alone, so a
// file sorted by class splits evenly, and every pass and every process agrees.
struct CsvSplit {
  int64_t limit = 0;
  double validation_split = 0;
  uint64_t seed = 0;

  bool validates(int64_t row) const;
};

enum class CsvSubset { all, training, validation };

// Reads every file once (twice when a column holds strings or the label is a class). String
// feature columns take their vocabulary from the training rows.
CsvSchema scan_csv(const CsvSourceOptions& options, const CsvSplit& split = {});

// The string columns' vocabularies, by column: a feature's values (its one-hot positions) and a
// string label's class names.
using CsvVocabularies = std::map<std::string, std::vector<std::string>>;
CsvVocabularies csv_vocabularies(const CsvSchema& schema);
// Gives the schema's string columns the vocabularies a run trained with (`saved`, read from
// `from`), so that a later scan of other rows keeps the features and classes the model learned: a
// value outside them gives zeros (a feature) or is refused (a label). A string column `saved`
// lacks is refused naming `from`.
void use_csv_vocabularies(CsvSchema& schema, const CsvVocabularies& saved, const std::string& from);

// The subset's good rows as (features, label) elements, or (features) without a label.
Dataset csv_dataset(const CsvSourceOptions& options, const CsvSchema& schema,
                    const CsvSplit& split = {}, CsvSubset subset = CsvSubset::all);

}  // namespace kiln::datasets
