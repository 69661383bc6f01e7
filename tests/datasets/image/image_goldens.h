#pragma once
// The image goldens of scripts/golden/generate_image_goldens.py, for the decoding, resizing and
// directory tests.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::datasets::goldens {

struct DecodeGolden {
  std::string file;
  int channels;
  int64_t height, width;
  std::vector<int> pixels;
};

struct ResizeGolden {
  int64_t height, width;
  std::string method;
  bool crop;
  std::vector<float> values;
};

#include "tests/datasets/image/image_goldens.inc"

}  // namespace kiln::datasets::goldens
