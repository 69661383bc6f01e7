// libFuzzer target: any bytes as text. They are read as a text folder's file (text_lines: one
// example per line) and go through the string layers: TextVectorization adapted on the lines,
// StringLookup on their tokens, Hashing; and the vocabulary file written and read back. Any of it
// may fail with kiln::Error, never crash, hang or leak; token ids stay inside the vocabulary, bins
// inside num_bins, and a vocabulary reads back as it was written. The first byte picks the
// standardization, the split, the ngrams and the output mode.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kiln/datasets/text/text_directory.h"
#include "kiln/framework/core/error.h"
#include "kiln/layers/preprocessing/hashing.h"
#include "kiln/layers/preprocessing/string_lookup.h"
#include "kiln/layers/preprocessing/text_vectorization.h"

namespace {

namespace fs = std::filesystem;
using kiln::layers::TextVectorization;

const fs::path& scratch_dir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("kiln_text_fuzz_" + std::to_string(getpid()));
  return dir;
}

// The file's lines as text_lines reads them.
std::vector<std::string> read_lines(const uint8_t* data, size_t size) {
  fs::create_directories(scratch_dir() / "only");
  std::ofstream(scratch_dir() / "only" / "file.txt", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::vector<std::string> lines;
  try {
    const kiln::datasets::TextDirectoryOptions options{
        .files = {.directory = scratch_dir().string(), .shuffle = false}, .num_parallel_calls = 1};
    for (const kiln::datasets::Element& e :
         kiln::datasets::text_lines_dataset(kiln::datasets::index_text_lines(options), options))
      lines.push_back(*e[0].data<std::string>());
  } catch (const kiln::Error&) {
    // A file without a non-empty line.
  }
  return lines;
}

void check_text_vectorization(const std::vector<std::string>& lines, uint8_t flags) {
  static const char* kStandardize[] = {"lower_and_strip_punctuation", "lower", "strip_punctuation",
                                       ""};
  static const char* kSplit[] = {"whitespace", "character", ""};
  static const char* kModes[] = {"int", "multi_hot", "count", "tf_idf"};
  kiln::layers::TextVectorizationOptions o{.max_tokens = 40,
                                           .standardize = kStandardize[flags & 3],
                                           .split = kSplit[(flags >> 2) % 3],
                                           .output_mode = kModes[(flags >> 4) & 3]};
  if ((flags & 0x40) != 0) o.ngrams_up_to = 3;
  if (o.output_mode == "int" && (flags & 0x80) != 0) o.output_sequence_length = 5;
  TextVectorization text(o);
  text.adapt(kiln::strings(lines));
  const kiln::Tensor out = text(std::vector<kiln::Tensor>{kiln::strings(lines)})[0];
  if (o.output_mode == "int")
    for (const int64_t id : out.to_vector<int64_t>())
      if (id < 0 || id >= text.vocabulary_size()) __builtin_trap();
}

void check_lookup_and_hashing(const std::vector<std::string>& lines) {
  kiln::layers::StringLookup lookup({.max_tokens = 20, .mask_token = ""});
  lookup.adapt(kiln::strings(lines));
  for (const int64_t id :
       lookup(std::vector<kiln::Tensor>{kiln::strings(lines)})[0].to_vector<int64_t>())
    if (id < 0 || id >= lookup.vocabulary_size()) __builtin_trap();
  // The vocabulary file reads back as written (or is refused: an entry holding a line break).
  for (const kiln::layers::WeightGroup& group : lookup.weight_groups()) {
    kiln::layers::AssetFiles files;
    try {
      files = group.save_assets();
    } catch (const kiln::Error&) {
      continue;
    }
    kiln::layers::StringLookup reloaded({.max_tokens = 20, .mask_token = ""});
    reloaded.weight_groups()[0].load_assets(files);
    if (reloaded.vocabulary() != lookup.vocabulary()) __builtin_trap();
  }
  kiln::layers::Hashing hashing(7, {.mask_value = ""});
  for (const int64_t bin :
       hashing(std::vector<kiln::Tensor>{kiln::strings(lines)})[0].to_vector<int64_t>())
    if (bin < 0 || bin >= 7) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<std::string> lines = read_lines(data + 1, size - 1);
  if (lines.empty()) return 0;
  try {
    check_text_vectorization(lines, data[0]);
  } catch (const kiln::Error&) {
    // A clear refusal is fine.
  }
  try {
    check_lookup_and_hashing(lines);
  } catch (const kiln::Error&) {
  }
  return 0;
}
