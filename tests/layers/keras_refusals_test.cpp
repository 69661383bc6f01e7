// Arguments Keras refuses are refused here too, with the layer and the values named, rather than
// giving a layer that computes something else.
#include <gmock/gmock.h>

#include <string>
#include <vector>

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

std::string error_reading(const std::string& class_name, const std::string& config) {
  return testing::error_of([&] {
    (void)deserialize_layer(
        Config::from_json(R"({"class_name": ")" + class_name + R"(", "config": )" + config + "}"));
  });
}

TEST(KerasRefusals, ArgumentsAKerasObjectDoesNotTakeAreNamed) {
  EXPECT_THAT(error_reading("Dense", R"({"units": 2, "kernel_constraint":
                                         {"class_name": "NonNeg", "config": {"axis": 0}}})"),
              HasSubstr("unknown key 'axis' for NonNeg"));
  EXPECT_THAT(error_reading("Conv2D", R"({"filters": 2, "kernel_size": 3,
                                          "activity_regularizer": {"L2": {"l1": 0.1}}})"),
              HasSubstr("unknown key 'l1' for L2"));
  EXPECT_THAT(error_reading("Dense", R"({"units": 2, "kernel_initializer":
                                         {"RandomNormal": {"stdev": 0.1}}})"),
              HasSubstr("unknown key 'stdev' for RandomNormal (did you mean 'stddev'"));
}

TEST(KerasRefusals, RecurrentFeaturesKilnDoesNotHave) {
  EXPECT_THAT(error_reading("LSTM", R"({"units": 2, "stateful": true})"),
              HasSubstr("LSTM: 'stateful' = true is not supported by kiln; only false is (carry "
                        "states with return_state and initial states instead)"));
  EXPECT_THAT(error_reading("GRU", R"({"units": 2, "reset_after": false})"),
              HasSubstr("GRU: 'reset_after' = false is not supported by kiln"));
  // Keys of another cell are unknown, as in Keras.
  EXPECT_THAT(error_reading("SimpleRNN", R"({"units": 2, "recurrent_activation": "sigmoid"})"),
              HasSubstr("unknown key 'recurrent_activation' for SimpleRNN"));
  EXPECT_THAT(error_reading("BatchNormalization", R"({"renorm": true})"),
              HasSubstr("BatchNormalization: 'renorm' = true is not supported by kiln"));
}

// Required arguments are keys of the layer's one field table: absent or null is an error naming
// the key, and they are written first, in Keras's order.
TEST(KerasRefusals, RequiredArgumentsAreNamed) {
  EXPECT_THAT(error_reading("Dense", R"({"use_bias": false})"), HasSubstr("missing key 'units'"));
  EXPECT_THAT(error_reading("Conv2D", R"({"filters": 2})"), HasSubstr("missing key 'kernel_size'"));
  EXPECT_THAT(error_reading("LSTM", R"({"units": null})"),
              HasSubstr("LSTM: 'units' is required and cannot be null"));
  EXPECT_THAT(error_reading("Embedding", R"({"input_dim": 10})"),
              HasSubstr("missing key 'output_dim'"));
  const Config conv = serialize_layer(*deserialize_layer(Config::from_json(
      R"({"class_name": "Conv1D", "config": {"kernel_size": [3], "filters": 4}})")));
  std::vector<std::string> keys;
  for (const auto& [key, value] : conv["config"].as_map()) keys.push_back(key);
  ASSERT_GE(keys.size(), 6u);
  EXPECT_EQ((std::vector<std::string>(keys.begin() + 3, keys.begin() + 6)),
            (std::vector<std::string>{"filters", "kernel_size", "strides"}));
}

TEST(KerasRefusals, KeysAreWrittenAsKerasWritesThem) {
  // Keras writes Dense's constraints and quantization_config as null, LoRA only when set.
  const Config dense = serialize_layer(*deserialize_layer(Config::from_json(
      R"({"class_name": "Dense", "config": {"units": 2, "lora_rank": null, "lora_alpha": 8}})")));
  EXPECT_TRUE(dense["config"]["kernel_constraint"].is_null());
  EXPECT_TRUE(dense["config"]["quantization_config"].is_null());
  EXPECT_FALSE(dense["config"].contains("lora_rank"));
  EXPECT_FALSE(dense["config"].contains("lora_alpha"));
}

}  // namespace
}  // namespace kiln::layers
