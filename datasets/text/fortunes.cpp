#include "kiln/datasets/text/fortunes.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

namespace fs = std::filesystem;

struct Language {
  const char* code;
  const char* subdir;   // under the fortunes directory; "" for English, which is at its top
  const char* package;  // the Debian package that installs it
};

constexpr Language kLanguages[] = {
    {"en", "", "fortunes"},      {"de", "de", "fortunes-de"}, {"es", "es", "fortunes-es"},
    {"it", "it", "fortunes-it"}, {"pl", "pl", "fortunes-pl"}, {"cs", "cs", "fortunes-cs"},
};

// The fortune files of one language: regular files, not the .dat indexes, not the .u8 links
// and not the links other packages put at the top level (Italian ones, for instance).
std::vector<fs::path> fortune_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (e.is_symlink() || !e.is_regular_file() || ext == ".dat" || ext == ".u8") continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // directory order is not portable
  return files;
}

// The entries of a file: text between lines holding only "%", whitespace runs collapsed.
std::vector<std::string> read_entries(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  KILN_CHECK(in, "fortunes: cannot read ", file.string());
  std::vector<std::string> entries;
  std::string entry, line;
  auto finish = [&] {
    while (!entry.empty() && entry.back() == ' ') entry.pop_back();
    if (!entry.empty()) entries.push_back(entry);
    entry.clear();
  };
  while (std::getline(in, line)) {
    if (line == "%" || line == "%\r") {
      finish();
      continue;
    }
    for (char c : line + '\n') {
      const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
      if (!space)
        entry.push_back(c);
      else if (!entry.empty() && entry.back() != ' ')
        entry.push_back(' ');
    }
  }
  finish();
  return entries;
}

// Fisher-Yates with mt19937_64, whose stream the standard fixes (std::shuffle's use of it is
// not), so a seed gives the same split everywhere.
void seeded_shuffle(std::vector<size_t>& order, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
}

SequenceSplit make_split(const std::vector<std::u32string>& texts,
                         const std::vector<int64_t>& labels, std::span<const size_t> rows,
                         const CharVocabulary& vocabulary) {
  SequenceSplit split;
  std::vector<int64_t> split_labels;
  for (size_t r : rows) {
    const std::vector<int32_t> ids = vocabulary.encode(texts[r]);
    split.sequences.push_back(
        from_vector(ids, Shape({static_cast<int64_t>(ids.size())}), DType::i32, Device::cpu()));
    split_labels.push_back(labels[r]);
  }
  split.labels = from_vector(split_labels, Shape({static_cast<int64_t>(split_labels.size())}),
                             DType::i64, Device::cpu());
  return split;
}

}  // namespace

std::string default_fortunes_dir() {
  if (const char* env = std::getenv("KILN_FORTUNES_DIR")) return env;
  return "/usr/share/games/fortunes";
}

Dataset SequenceSplit::dataset() const {
  std::vector<Element> elements;
  elements.reserve(sequences.size());
  for (size_t i = 0; i < sequences.size(); ++i)
    elements.push_back({sequences[i], labels.view(Shape({}), static_cast<int64_t>(i))});
  return Dataset::from_elements(std::move(elements));
}

FortuneTexts fortune_texts(const std::string& dir) {
  FortuneTexts out;
  // text -> label, or -1 once it was seen under two languages
  std::map<std::string, int64_t> label_of;
  std::vector<std::string> order;  // first-seen order, for a deterministic corpus
  for (const Language& lang : kLanguages) {
    const fs::path path = fs::path(dir) / lang.subdir;
    std::vector<fs::path> files;
    if (fs::is_directory(path)) files = fortune_files(path);
    KILN_CHECK(!files.empty(), "fortunes: no ", lang.code, " fortunes at ", path.string(),
               ": install the Debian package ", lang.package,
               " (scripts/bootstrap does) or set KILN_FORTUNES_DIR");
    const auto label = static_cast<int64_t>(out.languages.size());
    out.languages.emplace_back(lang.code);
    for (const fs::path& f : files) {
      for (std::string& e : read_entries(f)) {
        const auto [it, added] = label_of.emplace(e, label);
        if (added)
          order.push_back(std::move(e));
        else if (it->second != label)
          it->second = -1;
      }
    }
  }
  for (std::string& e : order) {
    const int64_t label = label_of.at(e);
    if (label < 0) continue;
    out.texts.push_back(std::move(e));
    out.labels.push_back(label);
  }
  return out;
}

FortunesLanguageId load_fortunes_language_id(const FortunesOptions& options) {
  KILN_CHECK(options.validation_fraction >= 0 && options.test_fraction >= 0 &&
                 options.validation_fraction + options.test_fraction < 1,
             "fortunes: validation_fraction (", options.validation_fraction,
             ") and test_fraction (", options.test_fraction,
             ") must be >= 0 and leave some entries for training");
  FortuneTexts corpus = fortune_texts(options.dir);
  FortunesLanguageId out;
  out.languages = std::move(corpus.languages);
  std::vector<std::u32string> texts;
  const std::vector<int64_t>& labels = corpus.labels;
  for (const std::string& e : corpus.texts) {
    std::u32string text = decode_utf8(e);
    if (options.max_length >= 0 && static_cast<int64_t>(text.size()) > options.max_length)
      text.resize(static_cast<size_t>(options.max_length));
    texts.push_back(std::move(text));
  }
  std::vector<size_t> rows(texts.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  seeded_shuffle(rows, options.seed);
  const auto n = static_cast<double>(rows.size());
  const auto num_test = static_cast<size_t>(n * options.test_fraction);
  const auto num_validation = static_cast<size_t>(n * options.validation_fraction);
  const std::span<const size_t> all(rows);
  const auto test_rows = all.first(num_test);
  const auto validation_rows = all.subspan(num_test, num_validation);
  const auto train_rows = all.subspan(num_test + num_validation);

  std::vector<std::u32string> train_texts;
  for (size_t r : train_rows) train_texts.push_back(texts[r]);
  out.vocabulary = CharVocabulary::build(train_texts, options.min_char_count);
  out.train = make_split(texts, labels, train_rows, out.vocabulary);
  out.validation = make_split(texts, labels, validation_rows, out.vocabulary);
  out.test = make_split(texts, labels, test_rows, out.vocabulary);
  return out;
}

}  // namespace kiln::datasets
