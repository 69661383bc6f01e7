// The random image layers: what each draw may produce (a flip or not, a window of the input, a
// contrast factor or brightness delta within the factor's range), fresh draws per call from a
// seed, and the identity at inference (tests/training/model/preprocessing_fit_test.cpp trains
// through them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/preprocessing/random_brightness.h"
#include "kiln/layers/preprocessing/random_contrast.h"
#include "kiln/layers/preprocessing/random_crop.h"
#include "kiln/layers/preprocessing/random_flip.h"
#include "kiln/layers/preprocessing/resizing.h"

namespace kiln::layers {
namespace {

constexpr int64_t kBatch = 32, kHeight = 5, kWidth = 6, kChannels = 2;

// Distinct values everywhere, so a window or a mirror is recognised.
Tensor images() {
  std::vector<float> v(static_cast<size_t>(kBatch * kHeight * kWidth * kChannels));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000) * 0.25f;
  return from_vector(v, {kBatch, kHeight, kWidth, kChannels});
}

Tensor image(const Tensor& batch, int64_t i) {
  return ops::squeeze(ops::slice(batch, {i, 0, 0, 0}, {1, -1, -1, -1}), {0});
}

bool same(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.to_vector<float>() == b.to_vector<float>();
}

Tensor call(Layer& layer, const Tensor& x, bool training) {
  return layer({x}, CallContext{.training = training})[0];
}

TEST(RandomFlip, FlipsSomeImagesLeftRightAndLeavesTheRest) {
  RandomFlip flip({.mode = "horizontal", .seed = 11});
  const Tensor x = images();
  const Tensor out = call(flip, x, true);
  int flipped = 0;
  for (int64_t i = 0; i < kBatch; ++i) {
    const Tensor mirror = ops::strided_slice(image(x, i), {kSliceEnd, kSliceEnd, kSliceEnd},
                                             {kSliceEnd, kSliceEnd, kSliceEnd}, {1, -1, 1});
    const bool is_mirror = same(image(out, i), mirror);
    EXPECT_TRUE(is_mirror || same(image(out, i), image(x, i))) << "image " << i;
    flipped += is_mirror;
  }
  EXPECT_GT(flipped, 4);
  EXPECT_LT(flipped, kBatch - 4);
  EXPECT_TRUE(same(call(flip, x, false), x));
}

TEST(RandomFlip, TheSameSeedGivesTheSameFlipsAndEachCallNewOnes) {
  RandomFlip a({.seed = 5}), b({.seed = 5});
  const Tensor x = images();
  const Tensor first = call(a, x, true);
  EXPECT_TRUE(same(first, call(b, x, true)));
  EXPECT_FALSE(same(first, call(a, x, true)));
}

TEST(RandomCrop, TakesOneWindowOfTheInputForTheWholeBatch) {
  RandomCrop crop(3, 4, {.seed = 2});
  const Tensor x = images();
  std::set<std::pair<int64_t, int64_t>> corners;
  for (int step = 0; step < 40; ++step) {
    const Tensor out = call(crop, x, true);
    ASSERT_EQ(out.shape(), Shape({kBatch, 3, 4, kChannels}));
    bool found = false;
    for (int64_t top = 0; top <= kHeight - 3 && !found; ++top)
      for (int64_t left = 0; left <= kWidth - 4 && !found; ++left)
        if (same(out, ops::slice(x, {0, top, left, 0}, {-1, 3, 4, -1}))) {
          corners.insert({top, left});
          found = true;
        }
    EXPECT_TRUE(found) << "step " << step;
  }
  EXPECT_EQ(corners.size(), 9u);  // every corner of the 3 x 3 there are, over 40 draws
  // At inference the largest centered 3:4 window, resized to 3 x 4.
  Resizing smart_resize(3, 4, {.crop_to_aspect_ratio = true});
  EXPECT_TRUE(same(call(crop, x, false), call(smart_resize, x, false)));
}

TEST(RandomContrast, ScalesEachImageAboutItsMeanByAFactorInRange) {
  RandomContrast contrast({0.2, 0.5}, {.value_range = {-1e6, 1e6}, .seed = 4});
  const Tensor x = images();
  const Tensor out = call(contrast, x, true);
  const Tensor mean = ops::mean(x, {1, 2}, true);
  const Tensor factor = (out - mean) / (x - mean);
  std::set<float> factors;
  for (int64_t i = 0; i < kBatch; ++i) {
    const std::vector<float> f = image(factor, i).to_vector<float>();
    for (const float v : f)
      if (std::isfinite(v)) {
        EXPECT_NEAR(v, f[0], 1e-3) << "image " << i;
        EXPECT_GE(v, 0.8f - 1e-3f);
        EXPECT_LE(v, 1.5f + 1e-3f);
      }
    factors.insert(f[0]);
  }
  EXPECT_GT(factors.size(), 1u);
  EXPECT_TRUE(same(call(contrast, x, false), x));
}

TEST(RandomBrightness, ShiftsEachImageWithinTheRangeAndClips) {
  RandomBrightness brightness(0.1, {.value_range = {0, 100}, .seed = 9});
  // 0 to 125, spread over every image: some pixels clip.
  std::vector<float> pixels(static_cast<size_t>(kBatch * kHeight * kWidth * kChannels));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>(i * 37 % 1000) * 0.125f;
  const Tensor x = from_vector(pixels, {kBatch, kHeight, kWidth, kChannels});
  const Tensor out = call(brightness, x, true);
  const std::vector<float> got = out.to_vector<float>(), in = x.to_vector<float>();
  const size_t per_image = static_cast<size_t>(kHeight * kWidth * kChannels);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_GE(got[i], 0.0f);
    EXPECT_LE(got[i], 100.0f);
  }
  for (int64_t n = 0; n < kBatch; ++n) {
    // The delta shows on a pixel in [10, 90), which no delta of at most 10 clips.
    const size_t base = static_cast<size_t>(n) * per_image;
    size_t k = base;
    while (k < base + per_image && (in[k] < 10 || in[k] >= 90)) ++k;
    ASSERT_LT(k, base + per_image) << "image " << n;
    const float delta = got[k] - in[k];
    EXPECT_LE(std::abs(delta), 10.0f + 1e-3f) << "image " << n;
    for (size_t j = base; j < base + per_image; ++j)
      EXPECT_NEAR(got[j], std::clamp(in[j] + delta, 0.0f, 100.0f), 1e-3) << j;
  }
}

}  // namespace
}  // namespace kiln::layers
