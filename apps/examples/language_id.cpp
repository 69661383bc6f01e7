// Language identification on Debian's fortune cookies (en, de, es, it, pl, cs; entries from a
// few characters to thousands, cut to their first kMaxLength): characters through
// Embedding(mask_zero), then (--model) an LSTM over every step and a masked max over the steps
// (lstm, the default) or a Transformer encoder block and a masked average (transformer), and a
// classifier.
// Before training it shows what one epoch costs in traces and time for each way of feeding
// variable-length batches:
//   padded per batch, exact shapes          -> a trace per distinct batch length (tf.function)
//   bucketed to K boundaries, exact shapes  -> at most one trace per bucket
//   padded per batch, reduce_retracing      -> two traces
//   padded per batch, the model's Input({-1}) signature -> one trace
#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "apps/examples/example_support.h"
#include "apps/examples/transformer_encoder.h"
#include "kiln/datasets/text/fortunes.h"
#include "kiln/framework/core/error.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"

using namespace kiln;
using datasets::Dataset;

namespace {

// Entries are cut to this many characters: the language shows long before, and the recurrence
// costs time in proportion to the length. The last bucket boundary lies just above it.
constexpr int64_t kMaxLength = 400;
const std::vector<int64_t> kBoundaries{32, 64, 96, 128, 192, 256, kMaxLength + 1};

// The first n entries of a split.
void keep_first(datasets::SequenceSplit& split, int64_t n) {
  if (n <= 0 || n >= split.size()) return;
  split.sequences.resize(static_cast<size_t>(n));
  split.labels = split.labels.view(Shape({n}));
}

std::unique_ptr<Model> make_model(const datasets::FortunesLanguageId& data,
                                  const std::string& which) {
  const auto classes = static_cast<int64_t>(data.languages.size());
  if (which.empty() || which == "lstm")
    return std::make_unique<Sequential>(std::vector<layers::LayerRef>{
        layers::Input({-1}, DType::i32),
        layers::Embedding(data.vocabulary.size(), 32, {.mask_zero = true}),
        layers::LSTM(64, {.return_sequences = true}), layers::GlobalMaxPooling1D(),
        layers::Dense(classes)});
  KILN_CHECK(which == "transformer", "language_id: --model must be lstm or transformer, got '",
             which, "'");
  const layers::KerasTensor ids = layers::Input({-1}, DType::i32);
  const layers::KerasTensor embedded =
      layers::Embedding(data.vocabulary.size(), 64, {.mask_zero = true})(ids);
  const layers::KerasTensor encoded = examples::transformer_encoder(embedded);
  return std::make_unique<Model>(
      ids, layers::Dense(classes)(layers::GlobalAveragePooling1D()(encoded)), "transformer_id");
}

Dataset padded(const datasets::SequenceSplit& split, int64_t batch_size, uint64_t seed) {
  return split.dataset().shuffle(static_cast<size_t>(split.size()), seed).padded_batch(batch_size);
}

Dataset bucketed(const datasets::SequenceSplit& split, int64_t batch_size, uint64_t seed) {
  return split.dataset()
      .shuffle(static_cast<size_t>(split.size()), seed)
      .bucket_by_sequence_length(nullptr, kBoundaries,
                                 std::vector<int64_t>(kBoundaries.size() + 1, batch_size),
                                 {.pad_to_bucket_boundary = true});
}

// The batch lengths of the pass fit's first epoch takes (pass 0).
int64_t distinct_lengths(const Dataset& ds) {
  std::set<int64_t> lengths;
  datasets::Iterator pass = ds.iterator(0);
  while (const std::optional<datasets::Element> batch = pass.next())
    lengths.insert((*batch)[0].dim(1));
  return static_cast<int64_t>(lengths.size());
}

// One epoch from a fresh model: its traces and time.
void report_epoch(const char* what, const datasets::FortunesLanguageId& data, const Dataset& ds,
                  StepShapes shapes, const examples::ExampleOptions& o) {
  layers::reset_names();
  const std::unique_ptr<Model> model = make_model(data, o.model);
  CompileOptions compile = examples::classifier_options(o);
  compile.step_shapes = shapes;
  model->compile(std::move(compile));
  const auto start = std::chrono::steady_clock::now();
  model->fit(ds, {.epochs = 1, .verbose = 0});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-44s %3lld traces for %3lld batch lengths, %.2f s/epoch\n", what,
              static_cast<long long>(model->trainer().train_stats().traces),
              static_cast<long long>(distinct_lengths(ds)), seconds);
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(
      argc, argv,
      {.epochs = 3,
       .batch_size = 64,
       .learning_rate = 2e-3,
       .data_dir = datasets::default_fortunes_dir()},
      [](const examples::ExampleOptions& o) {
        datasets::FortunesLanguageId data = datasets::load_fortunes_language_id(
            {.dir = o.data_dir, .seed = o.seed, .max_length = kMaxLength});
        // --limit: a slice for CI, validated and tested on a fifth as many entries.
        keep_first(data.train, o.limit);
        keep_first(data.validation, o.limit / 5);
        keep_first(data.test, o.limit / 5);
        std::printf("fortunes: %lld train, %lld validation, %lld test entries, %lld characters\n",
                    static_cast<long long>(data.train.size()),
                    static_cast<long long>(data.validation.size()),
                    static_cast<long long>(data.test.size()),
                    static_cast<long long>(data.vocabulary.size()));
        const int64_t b = o.batch_size;
        report_epoch("padded per batch, exact shapes:", data, padded(data.train, b, o.seed),
                     StepShapes::exact, o);
        report_epoch("bucketed (pad to boundary), exact shapes:", data,
                     bucketed(data.train, b, o.seed), StepShapes::exact, o);
        report_epoch("padded per batch, reduce_retracing:", data, padded(data.train, b, o.seed),
                     StepShapes::reduce_retracing, o);
        report_epoch("padded per batch, Input({-1}) signature:", data,
                     padded(data.train, b, o.seed), StepShapes::model_inputs, o);

        layers::reset_names();
        const std::unique_ptr<Model> model = make_model(data, o.model);
        std::printf("%s", model->summary().c_str());
        model->compile(examples::classifier_options(o));
        auto timer = std::make_shared<examples::EpochTimer>();
        model->fit(bucketed(data.train, b, o.seed),
                   {.epochs = o.epochs,
                    .callbacks = {timer},
                    .validation_dataset = data.validation.dataset().padded_batch(256)});
        const auto scores = model->evaluate(data.test.dataset().padded_batch(256));
        return examples::report(*model, scores, *timer, o);
      });
}
