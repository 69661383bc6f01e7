#include "kiln/layers/builtin_layers.h"

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
#include "kiln/layers/preprocessing/center_crop.h"
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

namespace kiln::layers {

std::map<std::string, std::function<LayerPtr(const Config&)>, std::less<>>
builtin_layer_factories() {
  return {
      {"Activation", Activation::from_config},
      {"Add", Add::from_config},
      {"Average", Average::from_config},
      {"AveragePooling1D", AveragePooling1D::from_config},
      {"AveragePooling2D", AveragePooling2D::from_config},
      {"BatchNormalization", BatchNormalization::from_config},
      {"Bidirectional", Bidirectional::from_config},
      {"CenterCrop", CenterCrop::from_config},
      {"Concatenate", Concatenate::from_config},
      {"Conv1D", Conv1D::from_config},
      {"Conv2D", Conv2D::from_config},
      {"Dense", Dense::from_config},
      {"DepthwiseConv2D", DepthwiseConv2D::from_config},
      {"Dropout", Dropout::from_config},
      {"Embedding", Embedding::from_config},
      {"Flatten", Flatten::from_config},
      {"GRU", GRU::from_config},
      {"GlobalAveragePooling1D", GlobalAveragePooling1D::from_config},
      {"GlobalAveragePooling2D", GlobalAveragePooling2D::from_config},
      {"GlobalMaxPooling1D", GlobalMaxPooling1D::from_config},
      {"GlobalMaxPooling2D", GlobalMaxPooling2D::from_config},
      {"InputLayer", InputLayer::from_config},
      {"LSTM", LSTM::from_config},
      {"Lambda", Lambda::from_config},
      {"LayerNormalization", LayerNormalization::from_config},
      {"Masking", Masking::from_config},
      {"MaxPooling1D", MaxPooling1D::from_config},
      {"MaxPooling2D", MaxPooling2D::from_config},
      {"Maximum", Maximum::from_config},
      {"MultiHeadAttention", MultiHeadAttention::from_config},
      {"Multiply", Multiply::from_config},
      {"Normalization", Normalization::from_config},
      {"Permute", Permute::from_config},
      {"RandomBrightness", RandomBrightness::from_config},
      {"RandomContrast", RandomContrast::from_config},
      {"RandomCrop", RandomCrop::from_config},
      {"RandomFlip", RandomFlip::from_config},
      {"RandomRotation", RandomRotation::from_config},
      {"RandomTranslation", RandomTranslation::from_config},
      {"RandomZoom", RandomZoom::from_config},
      {"RepeatVector", RepeatVector::from_config},
      {"Rescaling", Rescaling::from_config},
      {"Reshape", Reshape::from_config},
      {"Resizing", Resizing::from_config},
      {"SimpleRNN", SimpleRNN::from_config},
      {"Subtract", Subtract::from_config},
      {"TimeDistributed", TimeDistributed::from_config},
      {"UpSampling2D", UpSampling2D::from_config},
      {"ZeroPadding2D", ZeroPadding2D::from_config},
  };
}

}  // namespace kiln::layers
