// The layer harness's cases: every built-in layer class at least once, with the arguments that
// change its code path (padding, strides, dilation, groups, axes, masks off and on).
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/attention/multi_head_attention.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/conv/depthwise_conv2d.h"
#include "kiln/layers/core/activation.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/core/lambda.h"
#include "kiln/layers/core/masking.h"
#include "kiln/layers/merge/concatenate.h"
#include "kiln/layers/merge/merge.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/layers/normalization/layer_normalization.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/preprocessing/category_encoding.h"
#include "kiln/layers/preprocessing/center_crop.h"
#include "kiln/layers/preprocessing/discretization.h"
#include "kiln/layers/preprocessing/integer_lookup.h"
#include "kiln/layers/preprocessing/normalization.h"
#include "kiln/layers/preprocessing/random_brightness.h"
#include "kiln/layers/preprocessing/random_contrast.h"
#include "kiln/layers/preprocessing/random_crop.h"
#include "kiln/layers/preprocessing/random_flip.h"
#include "kiln/layers/preprocessing/random_rotation.h"
#include "kiln/layers/preprocessing/random_translation.h"
#include "kiln/layers/preprocessing/random_zoom.h"
#include "kiln/layers/preprocessing/rescaling.h"
#include "kiln/layers/preprocessing/resizing.h"
#include "kiln/layers/recurrent/bidirectional.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/recurrent/time_distributed.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/layers/reshaping/permute.h"
#include "kiln/layers/reshaping/repeat_vector.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/layers/reshaping/up_sampling2d.h"
#include "kiln/layers/reshaping/zero_padding2d.h"
#include "tests/layers/layer_harness.h"

namespace kiln::layers::testing {
namespace {

// The function the Lambda cases serialize by name.
const char* const kAffine = "harness_affine";

template <typename L, typename... Args>
std::function<LayerPtr()> make(Args... args) {
  return [=] { return std::make_shared<L>(args...); };
}

std::vector<LayerCase> all_cases() {
  if (!is_registered_lambda(kAffine))
    register_lambda(kAffine, [](const Tensor& x) { return x * 2.0 + 1.0; });
  const InputSpec vec4{{4}};
  const InputSpec seq{{7, 3}};
  const InputSpec image{{6, 5, 4}};
  return {
      // core
      {"Dense", make<Dense>(int64_t{3}), {vec4}, 2},
      {"Dense_relu_no_bias_rank3",
       make<Dense>(int64_t{3}, DenseOptions{.activation = "relu", .use_bias = false}),
       {seq},
       1},
      {"Dropout", make<Dropout>(0.5, DropoutOptions{.seed = 7}), {vec4}, 0, 0, true},
      {"Activation", make<Activation>(std::string("tanh")), {seq}},
      {"InputLayer", make<InputLayer>(Shape{-1, 4}, DType::f32, std::string()), {vec4}},
      {"Lambda", make<Lambda>(std::string(kAffine)), {seq}},
      {"Masking", make<Masking>(0.5), {seq}},
      {"Rescaling", make<Rescaling>(1.0 / 255, -0.5), {image}},
      {"Rescaling_per_channel",
       make<Rescaling>(std::vector<double>{0.5, 2, -1, 0.25}, std::vector<double>{1, 0, 0, 3}),
       {image}},
      // preprocessing
      {"Resizing", make<Resizing>(int64_t{3}, int64_t{4}), {image}},
      {"Resizing_bicubic_antialias_cropped",
       make<Resizing>(
           int64_t{4}, int64_t{2},
           ResizingOptions{
               .interpolation = "bicubic", .crop_to_aspect_ratio = true, .antialias = true}),
       {image}},
      {"Resizing_area_padded",
       make<Resizing>(
           int64_t{3}, int64_t{6},
           ResizingOptions{.interpolation = "area", .pad_to_aspect_ratio = true, .fill_value = 2}),
       {image}},
      {"Resizing_nearest_uint8",
       make<Resizing>(int64_t{9}, int64_t{2}, ResizingOptions{.interpolation = "nearest"}),
       {{{6, 5, 3}, DType::u8, 256}}},
      {"CenterCrop", make<CenterCrop>(int64_t{4}, int64_t{3}), {image}},
      {"CenterCrop_smaller_input_resized", make<CenterCrop>(int64_t{8}, int64_t{3}), {image}},
      {"RandomFlip", make<RandomFlip>(RandomFlipOptions{.seed = 3}), {image}, 0, 0, true},
      {"RandomFlip_horizontal",
       make<RandomFlip>(RandomFlipOptions{.mode = "horizontal", .seed = 4}),
       {image},
       0,
       0,
       true},
      {"RandomCrop",
       make<RandomCrop>(int64_t{4}, int64_t{3}, RandomCropOptions{.seed = 5}),
       {image},
       0,
       0,
       true},
      {"RandomCrop_smaller_input_resized",
       make<RandomCrop>(int64_t{4}, int64_t{6}, RandomCropOptions{.seed = 5}),
       {image}},
      {"RandomContrast",
       make<RandomContrast>(0.5, RandomContrastOptions{.value_range = {-1, 1}, .seed = 6}),
       {image},
       0,
       0,
       true},
      {"RandomBrightness",
       make<RandomBrightness>(0.3, RandomBrightnessOptions{.value_range = {-2, 2}, .seed = 8}),
       {image},
       0,
       0,
       true},
      {"RandomRotation",
       make<RandomRotation>(0.2, RandomAffineOptions{.seed = 10}),
       {image},
       0,
       0,
       true},
      {"RandomTranslation_constant_nearest",
       make<RandomTranslation>(
           Config(0.3), Config(std::vector<double>{-0.2, 0.4}),
           RandomAffineOptions{
               .fill_mode = "constant", .interpolation = "nearest", .seed = 11, .fill_value = 1.5}),
       {image},
       0,
       0,
       true},
      {"RandomZoom_wrap",
       make<RandomZoom>(Config(0.4), Config(),
                        RandomAffineOptions{.fill_mode = "wrap", .seed = 12}),
       {image},
       0,
       0,
       true},
      {"CategoryEncoding_count",
       make<CategoryEncoding>(int64_t{6}, CategoryEncodingOptions{.output_mode = "count"}),
       {{{4}, DType::i32, 6}}},
      {"CategoryEncoding_one_hot",
       make<CategoryEncoding>(int64_t{6}, CategoryEncodingOptions{.output_mode = "one_hot"}),
       {{{3}, DType::i64, 6}}},
      {"Discretization_multi_hot",
       make<Discretization>(std::vector<double>{0.5, 1.5, 2.5},
                            DiscretizationOptions{.output_mode = "multi_hot"}),
       {{{4}, DType::i32, 4}}},  // integers: a float input's gradient is zero everywhere
      // int output (the default) is integers, which the harness's float checks do not fit: the
      // goldens check it.
      {"IntegerLookup_mask_one_hot",
       make<IntegerLookup>(std::vector<int64_t>{3, 9, 4},
                           IntegerLookupOptions{.mask_token = 0, .output_mode = "one_hot"}),
       {{{4}, DType::i64, 10}}},
      {"IntegerLookup_multi_hot",
       make<IntegerLookup>(std::vector<int64_t>{3, 9, 4},
                           IntegerLookupOptions{.output_mode = "multi_hot"}),
       {{{4}, DType::i32, 10}}},
      {"Normalization_given",
       make<Normalization>(NormalizationOptions{.mean = std::vector<double>{1, 2, 3, 4},
                                                .variance = std::vector<double>{1, 4, 0.25, 2}}),
       {image}},
      {"Normalization_adapted_axes_1_2_inverted",
       make<Normalization>(NormalizationOptions{.axis = {1, 2}, .invert = true}),
       {seq},
       0,
       3},
      {"Embedding", make<Embedding>(int64_t{10}, int64_t{3}), {{{5}, DType::i32, 10}}, 1},
      {"Embedding_mask_zero_int64",
       make<Embedding>(int64_t{6}, int64_t{4}, EmbeddingOptions{.mask_zero = true}),
       {{{2, 3}, DType::i64, 6}},
       1},
      // normalization
      {"BatchNormalization", make<BatchNormalization>(), {vec4}, 2, 2},
      {"BatchNormalization_axis1_image",
       make<BatchNormalization>(BatchNormalizationOptions{.axis = 1, .momentum = 0.9}),
       {image},
       2,
       2},
      {"BatchNormalization_no_center_no_scale",
       make<BatchNormalization>(BatchNormalizationOptions{.center = false, .scale = false}),
       {seq},
       0,
       2},
      {"LayerNormalization", make<LayerNormalization>(), {seq}, 2},
      {"LayerNormalization_two_axes",
       make<LayerNormalization>(LayerNormalizationOptions{.axis = {1, 2}, .epsilon = 1e-5}),
       {image},
       2},
      {"LayerNormalization_rms_scaling",
       make<LayerNormalization>(LayerNormalizationOptions{.rms_scaling = true}),
       {seq},
       1},
      // convolution
      {"Conv1D", make<Conv1D>(int64_t{4}, std::vector<int64_t>{3}), {seq}, 2},
      {"Conv1D_causal_dilated",
       make<Conv1D>(int64_t{2}, std::vector<int64_t>{2},
                    ConvOptions{.padding = "causal", .dilation_rate = {2}}),
       {seq},
       2},
      {"Conv1D_same_strided_grouped",
       make<Conv1D>(int64_t{6}, std::vector<int64_t>{3},
                    ConvOptions{.strides = {2}, .padding = "same", .groups = 3}),
       {seq},
       2},
      {"Conv2D", make<Conv2D>(int64_t{3}, std::vector<int64_t>{3, 3}), {image}, 2},
      {"Conv2D_same_strided_relu_no_bias",
       make<Conv2D>(
           int64_t{2}, std::vector<int64_t>{3, 2},
           ConvOptions{
               .strides = {2, 1}, .padding = "same", .activation = "relu", .use_bias = false}),
       {image},
       1},
      {"Conv2D_dilated_grouped",
       make<Conv2D>(int64_t{4}, std::vector<int64_t>{2},
                    ConvOptions{.dilation_rate = {2}, .groups = 2}),
       {image},
       2},
      {"DepthwiseConv2D", make<DepthwiseConv2D>(std::vector<int64_t>{3, 3}), {image}, 2},
      {"DepthwiseConv2D_multiplier_same_strided",
       make<DepthwiseConv2D>(
           std::vector<int64_t>{2},
           DepthwiseConv2DOptions{.depth_multiplier = 2, .strides = {2}, .padding = "same"}),
       {image},
       2},
      // pooling
      {"MaxPooling1D", make<MaxPooling1D>(), {seq}},
      {"MaxPooling1D_same_strided",
       make<MaxPooling1D>(std::vector<int64_t>{3},
                          PoolingOptions{.strides = {2}, .padding = "same"}),
       {seq}},
      {"MaxPooling2D", make<MaxPooling2D>(), {image}},
      {"MaxPooling2D_same_overlapping",
       make<MaxPooling2D>(std::vector<int64_t>{3, 3},
                          PoolingOptions{.strides = {2, 1}, .padding = "same"}),
       {image}},
      {"AveragePooling1D", make<AveragePooling1D>(), {seq}},
      {"AveragePooling1D_same_strided",
       make<AveragePooling1D>(std::vector<int64_t>{3},
                              PoolingOptions{.strides = {2}, .padding = "same"}),
       {seq}},
      {"AveragePooling2D", make<AveragePooling2D>(), {image}},
      {"AveragePooling2D_same_overlapping",
       make<AveragePooling2D>(std::vector<int64_t>{2, 3},
                              PoolingOptions{.strides = {1, 2}, .padding = "same"}),
       {image}},
      {"GlobalAveragePooling1D", make<GlobalAveragePooling1D>(), {seq}},
      {"GlobalAveragePooling2D_keepdims",
       make<GlobalAveragePooling2D>(GlobalPoolingOptions{.keepdims = true}),
       {image}},
      {"GlobalMaxPooling1D_keepdims",
       make<GlobalMaxPooling1D>(GlobalPoolingOptions{.keepdims = true}),
       {seq}},
      {"GlobalMaxPooling2D", make<GlobalMaxPooling2D>(), {image}},
      // recurrent
      {"SimpleRNN", make<SimpleRNN>(int64_t{4}), {seq}, 3},
      {"SimpleRNN_relu_no_bias",
       make<SimpleRNN>(int64_t{4}, RecurrentOptions{.activation = "relu", .use_bias = false}),
       {seq},
       2},
      {"GRU_sequences_backwards",
       make<GRU>(int64_t{4}, RecurrentOptions{.return_sequences = true, .go_backwards = true}),
       {seq},
       3},
      {"GRU_initial_state_no_bias",
       make<GRU>(int64_t{4}, RecurrentOptions{.use_bias = false, .return_state = true}),
       {seq, {{4}}},
       2},
      {"LSTM", make<LSTM>(int64_t{4}), {seq}, 3},
      {"LSTM_states_and_initial_states",
       make<LSTM>(int64_t{4}, RecurrentOptions{.return_sequences = true, .return_state = true}),
       {seq, {{4}}, {{4}}},
       3},
      {"LSTM_dropout",
       make<LSTM>(int64_t{3},
                  RecurrentOptions{.dropout = 0.3, .recurrent_dropout = 0.2, .seed = 3}),
       {seq},
       3,
       0,
       true},
      {"Bidirectional_LSTM_sequences",
       [] {
         return std::make_shared<Bidirectional>(
             LSTM(3, {.return_sequences = true, .zero_output_for_mask = true}));
       },
       {seq},
       6},
      {"Bidirectional_GRU_sum_states",
       [] {
         return std::make_shared<Bidirectional>(GRU(4, {.return_state = true}),
                                                BidirectionalOptions{.merge_mode = "sum"});
       },
       {seq, {{4}}, {{4}}},
       6},
      {"Bidirectional_SimpleRNN_no_merge",
       [] {
         return std::make_shared<Bidirectional>(SimpleRNN(2),
                                                BidirectionalOptions{.merge_mode = ""});
       },
       {seq},
       6},
      {"TimeDistributed_Dense",
       [] { return std::make_shared<TimeDistributed>(Dense(2, {.activation = "tanh"})); },
       {seq},
       2},
      {"TimeDistributed_Conv1D",
       [] { return std::make_shared<TimeDistributed>(Conv1D(2, {3})); },
       {{{4, 6, 3}}},
       2},
      // attention
      {"MultiHeadAttention_self", make<MultiHeadAttention>(int64_t{2}, int64_t{3}), {seq, seq}, 8},
      {"MultiHeadAttention_causal_key_no_bias",
       make<MultiHeadAttention>(
           int64_t{1}, int64_t{4},
           MultiHeadAttentionOptions{
               .value_dim = 2, .use_bias = false, .output_shape = 5, .use_causal_mask = true}),
       {seq, {{7, 3}}, {{7, 2}}},
       4},
      {"MultiHeadAttention_dropout",
       make<MultiHeadAttention>(int64_t{2}, int64_t{2},
                                MultiHeadAttentionOptions{.dropout = 0.3, .seed = 5}),
       {seq, {{4, 3}}},
       8,
       0,
       true},
      // reshaping
      {"Flatten", make<Flatten>(), {image}},
      {"Reshape", make<Reshape>(Shape{3, -1}), {seq}},
      {"Permute", make<Permute>(std::vector<int64_t>{3, 1, 2}), {image}},
      {"RepeatVector", make<RepeatVector>(int64_t{3}), {vec4}},
      {"ZeroPadding2D",
       make<ZeroPadding2D>(std::vector<std::pair<int64_t, int64_t>>{{1, 2}, {0, 1}}),
       {image}},
      {"UpSampling2D", make<UpSampling2D>(std::vector<int64_t>{2, 3}), {image}},
      // merging
      {"Add", make<Add>(), {seq, seq}},
      {"Add_three_broadcast", make<Add>(), {seq, seq, {{1, 3}}}},
      {"Subtract", make<Subtract>(), {vec4, vec4}},
      {"Multiply", make<Multiply>(), {seq, seq}},
      {"Average", make<Average>(), {vec4, vec4, vec4}},
      {"Maximum", make<Maximum>(), {seq, seq}},
      {"Concatenate", make<Concatenate>(), {seq, {{7, 2}}}},
      {"Concatenate_axis1", make<Concatenate>(ConcatenateOptions{.axis = 1}), {seq, {{2, 3}}}},
  };
}

}  // namespace

const std::vector<LayerCase>& layer_cases() {
  static const std::vector<LayerCase> cases = all_cases();
  return cases;
}

}  // namespace kiln::layers::testing
