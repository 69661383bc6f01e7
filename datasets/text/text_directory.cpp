#include "kiln/datasets/text/text_directory.h"

#include <algorithm>
#include <fstream>
#include <memory>

#include "kiln/datasets/numpy_shuffle.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

const std::vector<std::string> kExtensions{".txt"};

std::ifstream open_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in, path, ": cannot be read");
  return in;
}

std::string read_text(const std::string& path, int64_t max_length) {
  std::ifstream in = open_text(path);
  in.seekg(0, std::ios::end);
  auto size = static_cast<int64_t>(in.tellg());
  if (max_length >= 0) size = std::min(size, max_length);
  std::string text(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(size));
  KILN_CHECK(in.gcount() == static_cast<std::streamsize>(size), path, ": read failed");
  return text;
}

// The worker's stream on `path`: lines come from a few files, so each worker keeps its last one
// open instead of opening a file per line.
std::ifstream& stream_on(const std::string& path) {
  thread_local std::string open_path;
  thread_local std::ifstream in;
  if (open_path != path || !in.is_open()) {
    in = open_text(path);
    open_path = path;
  }
  in.clear();
  return in;
}

// 0..n-1 as an int64 [n] tensor: the dataset of indices the readers map over.
Dataset indices(size_t n) {
  std::vector<int64_t> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = static_cast<int64_t>(i);
  return Dataset::from_tensor_slices(
      {from_vector(k, {static_cast<int64_t>(n)}, DType::i64, Device::cpu())});
}

Element example(std::string text, bool labelled, int32_t label, const TextDirectoryOptions& o,
                int64_t classes) {
  if (!labelled) return {string_scalar(std::move(text))};
  return {string_scalar(std::move(text)), label_tensor(label, o.files.label_mode, classes)};
}

}  // namespace

LabeledFiles index_text_directory(const TextDirectoryOptions& options) {
  return index_labeled_files(options.files, kExtensions, "text files");
}

Dataset text_dataset(const LabeledFiles& files, const TextDirectoryOptions& options) {
  auto shared = std::make_shared<const LabeledFiles>(files);
  const TextDirectoryOptions o = options;
  const bool labelled = o.files.label_mode != LabelMode::none && !files.labels.empty();
  const auto classes = static_cast<int64_t>(files.class_names.size());
  return indices(files.paths.size())
      .map(
          [shared, o, labelled, classes](const Element& e) {
            const auto k = static_cast<size_t>(e[0].item<int64_t>());
            return example(read_text(shared->paths[k], o.max_length), labelled,
                           labelled ? shared->labels[k] : 0, o, classes);
          },
          o.num_parallel_calls);
}

TextLines index_text_lines(const TextDirectoryOptions& options) {
  LabeledFileOptions unshuffled = options.files;
  unshuffled.shuffle = false;
  const LabeledFiles files = index_text_directory({.files = unshuffled});
  TextLines out{files.paths, {}, files.class_names, !files.labels.empty()};
  std::string line;
  for (size_t f = 0; f < files.paths.size(); ++f) {
    std::ifstream in = open_text(files.paths[f]);
    uint64_t offset = 0;
    while (std::getline(in, line)) {
      const uint64_t next = offset + line.size() + (in.eof() ? 0 : 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty())
        out.lines.push_back({offset, line.size(), static_cast<uint32_t>(f),
                             files.labels.empty() ? 0 : files.labels[f]});
      offset = next;
    }
    KILN_CHECK(!in.bad(), files.paths[f], ": read failed");
  }
  KILN_CHECK(!out.lines.empty(), options.files.directory, ": no non-empty lines in its .txt files");
  if (options.files.shuffle) numpy_shuffle(out.lines, options.files.seed);
  return out;
}

TextLines lines_subset(const TextLines& lines, double validation_split, Subset subset) {
  const auto [from, to] = subset_range(lines.lines.size(), validation_split, subset);
  return {lines.paths,
          {lines.lines.begin() + static_cast<std::ptrdiff_t>(from),
           lines.lines.begin() + static_cast<std::ptrdiff_t>(to)},
          lines.class_names,
          lines.labelled};
}

Dataset text_lines_dataset(const TextLines& lines, const TextDirectoryOptions& options) {
  auto shared = std::make_shared<const TextLines>(lines);
  const TextDirectoryOptions o = options;
  const bool labelled = o.files.label_mode != LabelMode::none && lines.labelled;
  const auto classes = static_cast<int64_t>(lines.class_names.size());
  return indices(lines.lines.size())
      .map(
          [shared, o, labelled, classes](const Element& e) {
            const TextLines::Line& line = shared->lines[static_cast<size_t>(e[0].item<int64_t>())];
            const std::string& path = shared->paths[line.file];
            uint64_t length = line.length;
            if (o.max_length >= 0) length = std::min<uint64_t>(length, o.max_length);
            std::string text(length, '\0');
            std::ifstream& in = stream_on(path);
            in.seekg(static_cast<std::streamoff>(line.offset));
            in.read(text.data(), static_cast<std::streamsize>(length));
            KILN_CHECK(in.gcount() == static_cast<std::streamsize>(length), path,
                       ": changed while it was read (a line at byte ", line.offset, " is gone)");
            return example(std::move(text), labelled, line.label, o, classes);
          },
          o.num_parallel_calls);
}

}  // namespace kiln::datasets
