// Under a half-precision policy, Embedding reads float ids as given (Keras's autocast=False):
// cast to float16 first, ids above 2048 would round to their neighbours' rows.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/core/embedding.h"

namespace kiln::layers {
namespace {

TEST(EmbeddingMixedPrecision, FloatIdsAreNotRoundedToTheComputeDtype) {
  for (const char* policy : {"mixed_float16", "mixed_bfloat16"}) {
    Embedding embedding(5000, 3, {.dtype = policy});
    const Tensor ids = from_vector<float>(std::vector<float>{1001, 2049, 4097}, {3});
    const Tensor rows = embedding(ids, /*training=*/false);
    const Tensor want =
        ops::gather(ops::cast(embedding.embeddings().value(), rows.dtype()),
                    from_vector<int32_t>(std::vector<int32_t>{1001, 2049, 4097}, {3}), 0);
    EXPECT_EQ(ops::cast(rows, DType::f32).to_vector<float>(),
              ops::cast(want, DType::f32).to_vector<float>())
        << policy;
  }
}

}  // namespace
}  // namespace kiln::layers
