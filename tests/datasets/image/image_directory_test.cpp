// Folders of images as datasets (datasets/image/image_directory.h) against Keras: the files
// index_directory lists for a class tree, in the order numpy's seeded shuffle gives
// (scripts/golden/generate_image_goldens.py); Keras's validation split; the label modes; and
// the folders and files that are refused or skipped.
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

#include "kiln/datasets/image/image_directory.h"
#include "kiln/datasets/numpy_shuffle.h"
#include "tests/datasets/dataset_test_util.h"
#include "tests/datasets/image/image_goldens.h"
#include "tests/test_support/expect_error.h"

namespace kiln::datasets {
namespace {

using kiln::testing::error_of;
using ::testing::HasSubstr;

using namespace goldens;

const std::string kTree = std::string(KILN_SOURCE_DIR) + "/tests/datasets/image/data/tree";

TEST(NumpyShuffle, RepeatsNumpysRandomState) {
  for (const auto& [seed, want] : kNumpyShuffles) {
    std::vector<int> items(want.size());
    for (size_t i = 0; i < items.size(); ++i) items[i] = static_cast<int>(i);
    numpy_shuffle(items, seed);
    EXPECT_EQ(items, want) << "seed " << seed;
  }
}

TEST(ImageDirectory, ListsKerassFilesInKerassShuffledOrder) {
  const LabeledFiles files = index_image_directory({.files = {.directory = kTree, .seed = 7}});
  EXPECT_EQ(files.class_names, kTreeClassNames);
  ASSERT_EQ(files.paths.size(), kTreeFiles.size());
  for (size_t i = 0; i < kTreeFiles.size(); ++i) {
    EXPECT_EQ(files.paths[i], kTree + "/" + kTreeFiles[i].first) << i;
    EXPECT_EQ(files.labels[i], kTreeFiles[i].second) << i;
  }
  // Keras's split: the last int(0.3 * 7) = 2 files validate.
  const LabeledFiles validation = labeled_subset(files, 0.3, Subset::validation);
  EXPECT_EQ(validation.paths, (std::vector<std::string>{files.paths[5], files.paths[6]}));
  EXPECT_EQ(labeled_subset(files, 0.3, Subset::training).paths.size(), 5u);
  // Without labels every image counts, in hidden folders and outside the classes too, as Keras
  // lists them: the top folder's first.
  const LabeledFiles all = index_image_directory(
      {.files = {.directory = kTree, .inferred_labels = false, .shuffle = false}});
  ASSERT_EQ(all.paths.size(), 9u);
  EXPECT_EQ(all.paths[0], kTree + "/top.png");
  EXPECT_EQ(all.paths[1], kTree + "/.hidden/x.png");
  EXPECT_TRUE(all.labels.empty());
}

TEST(ImageDirectory, DecodesResizesAndLabels) {
  const ImageDirectoryOptions options{.files = {.directory = kTree,
                                                .label_mode = LabelMode::categorical,
                                                .class_names = {"dogs", "cats"},
                                                .shuffle = false},
                                      .channels = 1,
                                      .height = 4,
                                      .width = 3};
  const LabeledFiles files = index_image_directory(options);
  EXPECT_EQ(files.class_names, (std::vector<std::string>{"dogs", "cats"}));
  EXPECT_EQ(files.paths.front(), kTree + "/dogs/d.png");
  int64_t count = 0;
  for (const Element& e : image_dataset(files, options)) {
    EXPECT_EQ(e[0].shape(), Shape({4, 3, 1}));
    EXPECT_EQ(e[0].dtype(), DType::f32);
    EXPECT_EQ(e[1].to_vector<float>(),
              count < 3 ? (std::vector<float>{1, 0}) : (std::vector<float>{0, 1}));
    ++count;
  }
  EXPECT_EQ(count, 6);
  const ImageDirectoryOptions binary{.files = {.directory = kTree,
                                               .label_mode = LabelMode::binary,
                                               .class_names = {"birds", "dogs"}}};
  const Element first = *image_dataset(index_image_directory(binary), binary).iterator().next();
  EXPECT_EQ(first[1].shape(), Shape({1}));
  EXPECT_EQ(first[0].shape(), Shape({256, 256, 3}));
}

TEST(ImageDirectory, RefusesWhatItCannotReadNamingIt) {
  EXPECT_THAT(
      error_of([] { (void)index_image_directory({.files = {.directory = kTree + "/none"}}); }),
      HasSubstr("tree/none: no such directory"));
  EXPECT_THAT(
      error_of([] {
        (void)index_image_directory({.files = {.directory = kTree, .class_names = {"cows"}}});
      }),
      HasSubstr("class_names names 'cows', which is no subfolder (subfolders: birds, cats, dogs)"));
  EXPECT_THAT(error_of([] {
                (void)index_image_directory(
                    {.files = {.directory = kTree, .label_mode = LabelMode::binary}});
              }),
              HasSubstr("label_mode binary needs 2 classes, found 3"));
  const testing::TempDir empty;
  std::filesystem::create_directories(empty.file("only_class"));
  std::ofstream(empty.file("only_class/readme.txt")) << "no images";
  EXPECT_THAT(
      error_of([&] { (void)index_image_directory({.files = {.directory = empty.file("")}}); }),
      HasSubstr(": no images (.bmp, .gif, .jpeg, .jpg, .png, .webp) in class subfolders"));
  // A damaged image: an error naming it when its element is read, or skipped and counted.
  std::ofstream(empty.file("only_class/bad.png")) << "\x89PNG\r\n\x1A\n truncated";
  std::ofstream(empty.file("only_class/fine.png"), std::ios::binary)
      << std::ifstream(kTree + "/cats/a.png", std::ios::binary).rdbuf();
  ImageDirectoryOptions options{
      .files = {.directory = empty.file(""), .shuffle = false}, .height = 2, .width = 2};
  const LabeledFiles files = index_image_directory(options);
  EXPECT_THAT(error_of([&] { (void)image_dataset(files, options).iterator().next(); }),
              HasSubstr("only_class/bad.png: bad PNG"));
  options.skip_bad_files = true;
  auto skipped = std::make_shared<std::atomic<int64_t>>(0);
  int64_t read = 0;
  for (const Element& e : image_dataset(files, options, skipped)) read += e[0].numel() > 0;
  EXPECT_EQ(read, 1);
  EXPECT_EQ(skipped->load(), 1);
}

}  // namespace
}  // namespace kiln::datasets
