// Texts per second through kiln's text pipeline, the work tf.data's text_dataset_from_directory +
// TextVectorization map does: every .txt file of a class-folder tree read on num_parallel_calls
// workers (text_dataset), batched by 32, each batch vectorized (standardized, split, looked up
// and padded to 64 ids) by a TextVectorization adapted on the folder beforehand, on a background
// thread, and prefetched; the consumer only takes batches. Prints the seconds and texts per
// second of each epoch. Usage: text_pipeline DIR [epochs] [num_parallel_calls]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "benchmarks/pipeline_epochs.h"
#include "kiln/datasets/text/text_directory.h"
#include "kiln/layers/preprocessing/text_vectorization.h"

int main(int argc, char** argv) {
  using namespace kiln;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [epochs] [num_parallel_calls]\n", argv[0]);
    return 2;
  }
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 3;
  datasets::TextDirectoryOptions options{.files = {.directory = argv[1], .seed = 1}};
  if (argc > 3) options.num_parallel_calls = std::atoi(argv[3]);
  const datasets::LabeledFiles files = datasets::index_text_directory(options);
  auto vectorize = std::make_shared<layers::TextVectorization>(
      layers::TextVectorizationOptions{.max_tokens = 20000, .output_sequence_length = 64});
  const datasets::Dataset texts = datasets::text_dataset(files, options).batch(32);
  const auto adapt_start = std::chrono::steady_clock::now();
  datasets::Iterator pass = texts.iterator();
  vectorize->adapt([&]() -> std::optional<Tensor> {
    std::optional<datasets::Element> batch = pass.next();
    return batch ? std::optional<Tensor>((*batch)[0]) : std::nullopt;
  });
  std::printf("adapt: %.3f s, %lld entries\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - adapt_start).count(),
              static_cast<long long>(vectorize->vocabulary_size()));
  const datasets::Dataset pipeline =
      texts
          .map([vectorize](const datasets::Element& batch) -> datasets::Element {
            return {vectorize->encode(batch[0]), batch[1]};
          })
          .prefetch(2);
  bench::time_epochs(pipeline, epochs, "texts");
  return 0;
}
