// Philox streams: seeded, independent of thread count, with the right distributions.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/philox.h"
#include "kiln/framework/random/random.h"

namespace kiln {
namespace {

TEST(Philox, MatchesPublishedKnownAnswer) {
  // Known-answer vector of Philox4x32-10 from the Random123 distribution (kat_vectors):
  // counter = key = 0.
  const auto r = random::philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(r, (random::PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(Random, SameSeedSameValuesAnyThreadCount) {
  const int threads = omp_get_max_threads();
  random::Generator g1(5), g2(5);
  omp_set_num_threads(1);
  const auto one = random::normal({100000}, 0, 1, DType::f32, g1).to_vector<float>();
  omp_set_num_threads(std::max(2, threads));
  const auto many = random::normal({100000}, 0, 1, DType::f32, g2).to_vector<float>();
  omp_set_num_threads(threads);
  EXPECT_EQ(one, many);
}

TEST(Random, SuccessiveDrawsDiffer) {
  random::Generator g(1);
  EXPECT_NE(random::uniform({8}, 0, 1, DType::f32, g).to_vector<float>(),
            random::uniform({8}, 0, 1, DType::f32, g).to_vector<float>());
  random::set_seed(3);
  const auto a = random::uniform({4}).to_vector<float>();
  random::set_seed(3);
  EXPECT_EQ(random::uniform({4}).to_vector<float>(), a);
}

TEST(Random, Distributions) {
  random::Generator g(9);
  const Tensor u = random::uniform({200000}, -2, 4, DType::f64, g);
  EXPECT_NEAR(ops::mean(u).item<double>(), 1, 0.02);
  EXPECT_GE(ops::min(u).item<double>(), -2);
  EXPECT_LT(ops::max(u).item<double>(), 4);
  const Tensor n = random::normal({200000}, 3, 2, DType::f64, g);
  EXPECT_NEAR(ops::mean(n).item<double>(), 3, 0.02);
  EXPECT_NEAR(std::sqrt(ops::variance(n).item<double>()), 2, 0.02);
  const Tensor t = random::truncated_normal({200000}, 0, 1, DType::f64, g);
  EXPECT_LE(ops::max(ops::abs(t)).item<double>(), 2);
  // The standard normal truncated to [-2, 2] has standard deviation 0.8796.
  EXPECT_NEAR(std::sqrt(ops::variance(t).item<double>()), 0.8796, 0.01);
  const Tensor b = random::bernoulli({200000}, 0.3, g);
  EXPECT_EQ(b.dtype(), DType::boolean);
  EXPECT_NEAR(ops::mean(ops::cast(b, DType::f64)).item<double>(), 0.3, 0.01);
}

}  // namespace
}  // namespace kiln
