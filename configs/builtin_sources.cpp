// The packaged datasets as data sources: {fashion_mnist: {path}} and
// {fortunes_language_id: {path, max_length, bucket_boundaries, pad_to_bucket_boundary}}.
#include "kiln/configs/data_sources.h"
#include "kiln/datasets/fashion_mnist.h"
#include "kiln/datasets/text/fortunes.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::configs {
namespace {

// Rows [from, to) of t.
Tensor rows(const Tensor& t, int64_t from, int64_t to) {
  std::vector<int64_t> begin{from}, size{to - from};
  begin.resize(static_cast<size_t>(t.rank()), 0);
  size.resize(static_cast<size_t>(t.rank()), -1);
  return ops::slice(t, begin, size);
}

// The first n rows of t (all of them for n <= 0).
Tensor first_rows(const Tensor& t, int64_t n) {
  return n <= 0 || n >= t.dim(0) ? t : rows(t, 0, n);
}

RunData fashion_mnist(const Config& args, const Config& data, uint64_t seed) {
  const std::string dir = args.get_string("path", datasets::default_fashion_mnist_dir());
  const datasets::FashionMnist all = datasets::load_fashion_mnist(dir);
  const int64_t limit = data.get_int("limit", 0);
  const int64_t batch = data.get_int("batch_size", 32);
  Tensor images = first_rows(all.train.images, limit), labels = first_rows(all.train.labels, limit);
  std::optional<datasets::Dataset> validation;
  const double split = data.get_double("validation_split", 0);
  if (split > 0) {
    const auto n = images.dim(0);
    const auto keep = static_cast<int64_t>(static_cast<double>(n) * (1 - split));
    validation =
        datasets::Dataset::from_tensor_slices({rows(images, keep, n), rows(labels, keep, n)})
            .batch(batch);
    images = rows(images, 0, keep);
    labels = rows(labels, 0, keep);
  }
  datasets::Dataset train = datasets::Dataset::from_tensor_slices({images, labels});
  if (data.get_bool("shuffle", true))
    train = train.shuffle(static_cast<size_t>(images.dim(0)), seed);
  return {train.batch(batch),
          validation,
          datasets::Dataset::from_tensor_slices(
              {first_rows(all.test.images, limit / 6), first_rows(all.test.labels, limit / 6)})
              .batch(batch),
          {{"num_classes", Config(int64_t{10})}}};
}

void keep_first(datasets::SequenceSplit& split, int64_t n) {
  if (n <= 0 || n >= split.size()) return;
  split.sequences.resize(static_cast<size_t>(n));
  split.labels = split.labels.view(Shape({n}));
}

RunData fortunes(const Config& args, const Config& data, uint64_t seed) {
  datasets::FortunesLanguageId all = datasets::load_fortunes_language_id(
      {.dir = args.get_string("path", datasets::default_fortunes_dir()),
       .seed = seed,
       .max_length = args.get_int("max_length", -1)});
  const int64_t limit = data.get_int("limit", 0);
  keep_first(all.train, limit);
  keep_first(all.validation, limit / 5);
  keep_first(all.test, limit / 5);
  const int64_t batch = data.get_int("batch_size", 32);
  datasets::Dataset train = all.train.dataset();
  if (data.get_bool("shuffle", true))
    train = train.shuffle(static_cast<size_t>(all.train.size()), seed);
  if (args.contains("bucket_boundaries")) {
    const std::vector<int64_t> boundaries = args["bucket_boundaries"].as_int_list();
    train = train.bucket_by_sequence_length(
        nullptr, boundaries, std::vector<int64_t>(boundaries.size() + 1, batch),
        {.pad_to_bucket_boundary = args.get_bool("pad_to_bucket_boundary", false)});
  } else {
    train = train.padded_batch(batch);
  }
  return {train,
          all.validation.dataset().padded_batch(batch),
          all.test.dataset().padded_batch(batch),
          {{"num_classes", Config(static_cast<int64_t>(all.languages.size()))},
           {"vocabulary_size", Config(all.vocabulary.size())}}};
}

}  // namespace

DataSource fashion_mnist_source() {
  return {{"path"}, [](const Config&, const Config&) {}, fashion_mnist};
}

DataSource fortunes_source() {
  return {{"path", "max_length", "bucket_boundaries", "pad_to_bucket_boundary"},
          [](const Config&, const Config& data) {
            KILN_CHECK(!data.contains("validation_split"), data["validation_split"].where(),
                       "fortunes_language_id has its own validation split (10% of the entries)");
          },
          fortunes};
}

}  // namespace kiln::configs
