// Arguments Keras refuses are refused here too, with the layer and the values named, rather than
// giving a layer that computes something else.
#include <gmock/gmock.h>

#include "kiln/framework/core/config.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/registry.h"
#include "tests/test_support/expect_error.h"

namespace kiln::layers {
namespace {

using ::testing::HasSubstr;

TEST(KerasRefusals, StridedDilatedConvolutions) {
  EXPECT_THAT(testing::error_of([] {
                Conv2D(4, {3, 3}, {.strides = {2}, .dilation_rate = {2}});
              }),
              HasSubstr("strides > 1 are not supported together with dilation_rate > 1, got "
                        "strides [2, 2] and dilation_rate [2, 2]"));
}

TEST(KerasRefusals, ChannelsFirstFlatten) {
  const Config config = Config::from_json(
      R"({"class_name": "Flatten", "config": {"name": "f", "data_format": "channels_first"}})");
  EXPECT_THAT(testing::error_of([&] { (void)deserialize_layer(config); }),
              HasSubstr("channels_first"));
}

}  // namespace
}  // namespace kiln::layers
