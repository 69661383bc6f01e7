#pragma once
// Reads numeric columns of a CSV file (RFC 4180: quoted fields may hold delimiters, doubled
// quotes and newlines) into 1-D tensors. Tensors hold numbers only, so text columns are left out
// with select_columns; a selected field that is not a number is an error.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

// Members have initializers so that designated initializers may name any subset of them.
struct CsvOptions {
  // The first row names the columns. Without it the columns are named "0", "1", ...
  bool header = true;
  char delimiter = ',';
  // The columns to read, in this order; empty reads every column in file order.
  std::vector<std::string> select_columns = {};
  // The dtype of every column not in column_dtypes: float32, float64, int32 or int64.
  DType default_dtype = DType::f32;
  std::map<std::string, DType> column_dtypes = {};
  // Replaces empty fields (after trimming spaces). Without it an empty field is an error.
  std::optional<double> missing_value = {};
};

struct CsvTable {
  std::vector<std::string> names;
  std::vector<Tensor> columns;  // 1-D, one per name, all with one element per data row

  // The column called name; throws listing the available names.
  const Tensor& column(std::string_view name) const;
};

// Throws kiln::Error naming path:line:column (1-based, the column's name too) and the offending
// text for unparsable numbers, values out of the column dtype's range, rows with the wrong number
// of fields and unterminated quotes; and naming the path for unknown columns or a missing file.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

}  // namespace kiln::datasets
