// Images per second through kiln's image pipeline, the work tf.data's
// image_dataset_from_directory + RandomFlip map does: every JPEG of a class-folder tree decoded
// and resized to 180 x 180 on num_parallel_calls workers (image_dataset), batched by 32, each
// batch flipped at random by a RandomFlip layer on a background thread, and prefetched; the
// consumer only takes batches. Prints the seconds and images per second of each epoch. With a
// cache file, the decoded images are cached there before batching: the first epoch writes it,
// the others read it instead of decoding.
// Usage: image_pipeline DIR [epochs] [num_parallel_calls] [cache_file]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "benchmarks/pipeline_epochs.h"
#include "kiln/datasets/image/image_directory.h"
#include "kiln/layers/preprocessing/random_flip.h"

int main(int argc, char** argv) {
  using namespace kiln;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [epochs] [num_parallel_calls] [cache_file]\n", argv[0]);
    return 2;
  }
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 3;
  datasets::ImageDirectoryOptions options{
      .files = {.directory = argv[1], .seed = 1}, .height = 180, .width = 180};
  if (argc > 3) options.num_parallel_calls = std::atoi(argv[3]);
  const datasets::LabeledFiles files = datasets::index_image_directory(options);
  auto flip = std::make_shared<layers::RandomFlip>(
      layers::RandomFlipOptions{.mode = "horizontal", .seed = 1});
  datasets::Dataset images = datasets::image_dataset(files, options);
  if (argc > 4) images = images.cache(argv[4]);
  const datasets::Dataset pipeline =
      images.batch(32)
          .map([flip](const datasets::Element& batch) -> datasets::Element {
            return {(*flip)({batch[0]}, layers::CallContext{.training = true})[0], batch[1]};
          })
          .prefetch(2);
  bench::time_epochs(pipeline, epochs, "images");
  return 0;
}
