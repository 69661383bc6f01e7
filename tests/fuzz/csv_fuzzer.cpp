// libFuzzer target: any bytes as a CSV file, read by the CSV source (schema scan, then a pass)
// and by read_csv. Reading may fail with kiln::Error (a clear message), never crash, hang or
// leak; a file that scans yields exactly the rows the scan counted. The first byte picks the
// options: header or not, the delimiter, skipping bad rows, and whether the last column labels.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "kiln/datasets/csv/csv_rows.h"
#include "kiln/datasets/csv/csv_source.h"
#include "kiln/datasets/csv_file.h"
#include "kiln/framework/core/error.h"

namespace {

const std::string& scratch_path() {
  static const std::string path = "/tmp/kiln_csv_fuzz_" + std::to_string(getpid()) + ".csv";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  std::ofstream(scratch_path(), std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  kiln::datasets::CsvSourceOptions options{.paths = {scratch_path()},
                                           .header = (flags & 1) != 0,
                                           .delimiter = (flags & 2) != 0 ? ';' : ',',
                                           .skip_bad_rows = (flags & 4) != 0};
  try {
    if ((flags & 8) != 0) options.label = kiln::datasets::CsvRows(options).names().back();
    const kiln::datasets::CsvSchema schema = kiln::datasets::scan_csv(options);
    int64_t rows = 0;
    for (const kiln::datasets::Element& e : kiln::datasets::csv_dataset(options, schema)) {
      if (e[0].numel() != schema.feature_width()) __builtin_trap();
      ++rows;
    }
    if (rows != schema.rows) __builtin_trap();
  } catch (const kiln::Error&) {
  }
  try {
    (void)kiln::datasets::read_csv(scratch_path(),
                                   {.header = options.header, .delimiter = options.delimiter});
  } catch (const kiln::Error&) {
  }
  return 0;
}
