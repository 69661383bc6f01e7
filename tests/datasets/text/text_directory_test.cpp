// Folders of text as datasets of strings (datasets/text/text_directory.h): one example per file
// (Keras's text_dataset_from_directory) or per line, labelled by class subfolder, split as Keras
// splits, read on worker threads in order.
#include <gmock/gmock.h>

#include <fstream>
#include <set>

#include "kiln/datasets/text/text_directory.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets {
namespace {

using testing::error_of;
using ::testing::HasSubstr;

// neg/ holds a.txt "bad film" and b.txt "dull\r\n\r\nslow\n"; pos/ holds c.txt "great" and
// notes.md (not text); top.txt sits beside the classes.
class TextFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir.file("neg"));
    std::filesystem::create_directories(dir.file("pos"));
    std::ofstream(dir.file("neg/a.txt"), std::ios::binary) << "bad film";
    std::ofstream(dir.file("neg/b.txt"), std::ios::binary) << "dull\r\n\r\nslow\n";
    std::ofstream(dir.file("pos/c.txt"), std::ios::binary) << "great";
    std::ofstream(dir.file("pos/notes.md"), std::ios::binary) << "not an example";
    std::ofstream(dir.file("top.txt"), std::ios::binary) << "no class";
  }
  testing::TempDir dir;
};

std::vector<std::pair<std::string, int32_t>> examples(const Dataset& ds) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const Element& e : ds) {
    EXPECT_EQ(e[0].dtype(), DType::string);
    EXPECT_EQ(e[0].rank(), 0);
    out.emplace_back(*e[0].data<std::string>(), e.size() > 1 ? e[1].item<int32_t>() : -1);
  }
  return out;
}

TEST_F(TextFolder, ReadsEachFileWholeWithItsClass) {
  const TextDirectoryOptions o{.files = {.directory = dir.file(""), .shuffle = false}};
  const LabeledFiles files = index_text_directory(o);
  EXPECT_EQ(files.class_names, (std::vector<std::string>{"neg", "pos"}));
  using P = std::pair<std::string, int32_t>;
  EXPECT_EQ(examples(text_dataset(files, o)),
            (std::vector<P>{{"bad film", 0}, {"dull\r\n\r\nslow\n", 0}, {"great", 1}}));
  TextDirectoryOptions cut = o;
  cut.max_length = 3;
  cut.num_parallel_calls = 2;
  EXPECT_EQ(examples(text_dataset(files, cut)),
            (std::vector<P>{{"bad", 0}, {"dul", 0}, {"gre", 1}}));
  // Without labels every .txt file counts, the top-level one too.
  const TextDirectoryOptions unlabelled{
      .files = {.directory = dir.file(""), .inferred_labels = false, .shuffle = false}};
  EXPECT_EQ(examples(text_dataset(index_text_directory(unlabelled), unlabelled)).size(), 4u);
}

TEST_F(TextFolder, ReadsEachNonEmptyLineWithItsFilesClass) {
  const TextDirectoryOptions o{.files = {.directory = dir.file(""), .shuffle = false}};
  const TextLines lines = index_text_lines(o);
  using P = std::pair<std::string, int32_t>;
  EXPECT_EQ(examples(text_lines_dataset(lines, o)),
            (std::vector<P>{{"bad film", 0}, {"dull", 0}, {"slow", 0}, {"great", 1}}));
  EXPECT_EQ(examples(text_lines_dataset(lines_subset(lines, 0.5, Subset::validation), o)),
            (std::vector<P>{{"slow", 0}, {"great", 1}}));
  // Shuffled lines: the same examples in another order, the same order for the same seed.
  const TextDirectoryOptions shuffled{.files = {.directory = dir.file(""), .seed = 3},
                                      .num_parallel_calls = 2};
  const auto once = examples(text_lines_dataset(index_text_lines(shuffled), shuffled));
  EXPECT_EQ(examples(text_lines_dataset(index_text_lines(shuffled), shuffled)), once);
  EXPECT_EQ(std::set<P>(once.begin(), once.end()),
            (std::set<P>{{"bad film", 0}, {"dull", 0}, {"slow", 0}, {"great", 1}}));
}

TEST_F(TextFolder, SplitsAsKeras) {
  const TextDirectoryOptions o{.files = {.directory = dir.file(""), .seed = 5}};
  const LabeledFiles files = index_text_directory(o);
  EXPECT_EQ(labeled_subset(files, 0.4, Subset::training).paths.size(), 2u);
  EXPECT_EQ(labeled_subset(files, 0.4, Subset::validation).paths,
            std::vector<std::string>{files.paths.back()});
}

TEST_F(TextFolder, RefusesFoldersWithoutTextNamingThem) {
  testing::TempDir empty;
  std::filesystem::create_directories(empty.file("only/sub"));
  std::ofstream(empty.file("only/empty.txt")) << "\n\r\n";
  EXPECT_THAT(error_of([&] { (void)index_text_lines({.files = {.directory = empty.file("")}}); }),
              HasSubstr(": no non-empty lines in its .txt files"));
  std::filesystem::remove(empty.file("only/empty.txt"));
  EXPECT_THAT(
      error_of([&] { (void)index_text_directory({.files = {.directory = empty.file("")}}); }),
      HasSubstr(": no text files (.txt) in class subfolders"));
  const TextDirectoryOptions o{.files = {.directory = dir.file(""), .shuffle = false}};
  const LabeledFiles files = index_text_directory(o);
  std::filesystem::remove(dir.file("neg/a.txt"));
  EXPECT_THAT(error_of([&] { (void)text_dataset(files, o).iterator().next(); }),
              HasSubstr("neg/a.txt: cannot be read"));
}

}  // namespace
}  // namespace kiln::datasets
