#pragma once
// numpy.random.RandomState(seed).shuffle(items), exactly: Keras shuffles the files of a
// directory dataset so before splitting off validation, and kiln's directory sources do the same
// so a seed picks the same files for validation in kiln and in Keras. RandomState seeds
// MT19937 as std::mt19937 does and shuffles from the last item down, drawing each index with a
// bitmask and rejection (numpy's random_interval).
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace kiln::datasets {

// A uniform integer in [0, max], as numpy's legacy random_interval draws it (max < 2^32).
inline uint32_t numpy_random_interval(std::mt19937& bits, uint32_t max) {
  if (max == 0) return 0;
  uint32_t mask = max;
  for (const int shift : {1, 2, 4, 8, 16}) mask |= mask >> shift;
  uint32_t value = 0;
  do {
    value = static_cast<uint32_t>(bits()) & mask;
  } while (value > max);
  return value;
}

template <typename T>
void numpy_shuffle(std::vector<T>& items, uint32_t seed) {
  std::mt19937 bits(seed);
  for (size_t i = items.size(); i-- > 1;)
    std::swap(items[i], items[numpy_random_interval(bits, static_cast<uint32_t>(i))]);
}

}  // namespace kiln::datasets
