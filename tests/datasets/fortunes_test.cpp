// The character vocabulary, UTF-8 decoding and the fortunes language-identification corpus
// (from a small generated directory, and from the Debian packages when installed).
#include "kiln/datasets/text/fortunes.h"

#include <gmock/gmock.h>

#include <fstream>
#include <numeric>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

TEST(CharVocabulary, IdsByFrequencyWithPaddingAndUnknownReserved) {
  const std::vector<std::u32string> texts{U"abcab", U"bz"};
  const CharVocabulary v = CharVocabulary::build(texts, /*min_count=*/2);
  EXPECT_EQ(v.size(), 4);  // padding, unknown, b (3), a (2); c and z are rare
  EXPECT_EQ(v.encode(U"abcz"), (std::vector<int32_t>{3, 2, 1, 1}));
  EXPECT_EQ(v.character(2), U'b');
  EXPECT_THAT(error_of([&] { (void)v.character(0); }), HasSubstr("0 is padding"));
}

TEST(CharVocabulary, DecodesUtf8AndReplacesMalformedBytes) {
  EXPECT_EQ(decode_utf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), U"a\u00e9\u20ac\U0001F600");
  EXPECT_EQ(decode_utf8("x\xff"
                        "y\xc3"),
            U"x\uFFFDy\uFFFD");
}

// A fortunes tree with `per_language` entries per language, plus the distractors a real install
// has: .dat indexes, .u8 links, a link to another language and a subdirectory.
void write_tree(const std::filesystem::path& root, int per_language) {
  namespace fs = std::filesystem;
  const char* subdirs[] = {"", "de", "es", "it", "pl", "cs"};
  for (int l = 0; l < 6; ++l) {
    const fs::path dir = root / subdirs[l];
    fs::create_directories(dir / "off");
    std::ofstream out(dir / "quotes");
    for (int e = 0; e < per_language; ++e)
      out << "entry " << l << "-" << e << "\n\t  spans\tlines\n%\n";
    out << "shared by all\n%\n";
    std::ofstream(dir / "quotes.dat") << "index";
    fs::create_symlink("quotes", dir / "quotes.u8");
    std::ofstream(dir / "off" / "hidden") << "never read\n%\n";
  }
  fs::create_symlink("de/quotes", root / "german-link");
}

TEST(Fortunes, SplitsLabelsAndEncodesEntries) {
  TempDir dir;
  write_tree(dir.path(), 10);
  const FortunesLanguageId data =
      load_fortunes_language_id({.dir = dir.path().string(), .seed = 3, .min_char_count = 1});
  EXPECT_EQ(data.languages, (std::vector<std::string>{"en", "de", "es", "it", "pl", "cs"}));
  // "shared by all" is under every language, so it is dropped: 60 entries remain.
  EXPECT_EQ(data.train.size() + data.validation.size() + data.test.size(), 60);
  EXPECT_EQ(data.test.size(), 6);
  EXPECT_EQ(data.validation.size(), 6);
  std::vector<int64_t> per_class(6, 0);
  for (int64_t label : data.train.labels.to_vector<int64_t>())
    ++per_class[static_cast<size_t>(label)];
  EXPECT_EQ(std::accumulate(per_class.begin(), per_class.end(), int64_t{0}), 48);
  // Whitespace runs collapse: "entry L-E spans lines" has 21 or 22 characters.
  for (const Tensor& s : data.train.sequences) {
    EXPECT_EQ(s.dtype(), DType::i32);
    EXPECT_GE(s.dim(0), 21);
    EXPECT_LE(s.dim(0), 22);
    for (int32_t id : s.to_vector<int32_t>()) EXPECT_GE(id, 2);
  }
  const Element first = *data.train.dataset().iterator().next();
  EXPECT_EQ(first[0].rank(), 1);
  EXPECT_EQ(first[1].shape(), Shape({}));
}

TEST(Fortunes, TheSplitDependsOnTheSeedOnly) {
  TempDir dir;
  write_tree(dir.path(), 10);
  auto test_labels = [&](uint64_t seed) {
    return load_fortunes_language_id({.dir = dir.path().string(), .seed = seed})
        .test.labels.to_vector<int64_t>();
  };
  EXPECT_EQ(test_labels(1), test_labels(1));
  const auto sizes = [&](int64_t max_length) {
    return load_fortunes_language_id({.dir = dir.path().string(), .max_length = max_length})
        .train.sequences[0]
        .dim(0);
  };
  EXPECT_EQ(sizes(5), 5);
}

TEST(Fortunes, AMissingLanguageNamesItsPackage) {
  TempDir dir;
  write_tree(dir.path(), 2);
  std::filesystem::remove_all(dir.path() / "pl");
  const std::string msg =
      error_of([&] { (void)load_fortunes_language_id({.dir = dir.path().string()}); });
  EXPECT_THAT(msg, HasSubstr((dir.path() / "pl").string()));
  EXPECT_THAT(msg, HasSubstr("fortunes-pl"));
}

TEST(Fortunes, TheDebianPackages) {
  if (!std::filesystem::is_directory(default_fortunes_dir() + "/cs"))
    GTEST_SKIP() << "the fortunes packages are not installed";
  const FortunesLanguageId data = load_fortunes_language_id();
  const int64_t total = data.train.size() + data.validation.size() + data.test.size();
  EXPECT_GT(total, 50000);
  EXPECT_GT(data.vocabulary.size(), 100);
  int64_t longest = 0;
  for (const Tensor& s : data.train.sequences) longest = std::max(longest, s.dim(0));
  EXPECT_GT(longest, 1000);
}

}  // namespace
}  // namespace kiln::datasets::testing
