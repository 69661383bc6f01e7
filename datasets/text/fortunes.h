#pragma once
// Language identification on Debian's fortune cookies: the entries of the packages fortunes
// (English), fortunes-de, fortunes-es, fortunes-it, fortunes-pl and fortunes-cs, as character id
// sequences labelled with their language (6 classes). Lengths run from a few characters to
// several thousand, which makes it a test of variable-length training.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/text/char_vocabulary.h"

namespace kiln::datasets {

// The packages' install location; KILN_FORTUNES_DIR overrides it.
std::string default_fortunes_dir();

// Every entry of every language, as the language id corpus reads them (below), in the order
// first seen: an entry found under two languages is dropped, repeats within one kept once.
struct FortuneTexts {
  std::vector<std::string> languages;  // en de es it pl cs
  std::vector<std::string> texts;      // UTF-8, runs of whitespace collapsed to one space
  std::vector<int64_t> labels;         // index into languages
};
FortuneTexts fortune_texts(const std::string& dir = default_fortunes_dir());

struct FortunesOptions {
  std::string dir = default_fortunes_dir();
  uint64_t seed = 0;  // the train / validation / test split
  double validation_fraction = 0.1;
  double test_fraction = 0.1;
  int64_t max_length = -1;     // characters kept from the start of an entry; -1 keeps all
  int64_t min_char_count = 2;  // rarer training characters become CharVocabulary::kUnknown
};

struct SequenceSplit {
  std::vector<Tensor> sequences;  // int32 [length] character ids (>= 1; 0 is padding)
  Tensor labels;                  // int64 [n] class ids

  int64_t size() const { return static_cast<int64_t>(sequences.size()); }
  // (sequence int32[length], label int64[]) elements, for padded_batch or bucketing.
  Dataset dataset() const;
};

struct FortunesLanguageId {
  std::vector<std::string> languages;  // class id -> language code: en de es it pl cs
  CharVocabulary vocabulary;           // built from the training split
  SequenceSplit train, validation, test;
};

// Entries are the texts between lines holding only "%", with runs of whitespace collapsed to
// one space; an entry found under two languages is dropped, repeats within one kept once. The
// split is a seeded shuffle of all entries. Throws kiln::Error naming the directory and the
// Debian package when a language is missing.
FortunesLanguageId load_fortunes_language_id(const FortunesOptions& options = {});

}  // namespace kiln::datasets
