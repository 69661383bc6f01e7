// Training time of LSTM(128) over Embedding(100, 64) then Dense(5) (Adam, batch 64) on random
// token sequences of lengths uniform in 5..200, per 1000 sequences, fed two ways: padded to each
// batch's longest sequence, and bucketed by length (pad to the bucket boundary). The data
// generator matches pytorch_lstm.py's in distribution, not value by value.
//   lstm_epoch [--sequences N] [--epochs E]
// Prints one line per feeding: "<mode>: traces T, first epoch F s, s/1000 sequences S".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "kiln/datasets/dataset.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/losses/losses.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"

using namespace kiln;

namespace {

constexpr int64_t kBatch = 64, kVocab = 100, kClasses = 5, kMinLength = 5, kMaxLength = 200;

std::vector<datasets::Element> make_sequences(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> length(kMinLength, kMaxLength);
  std::uniform_int_distribution<int32_t> token(1, kVocab - 1), label(0, kClasses - 1);
  std::vector<datasets::Element> out;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int32_t> ids(static_cast<size_t>(length(gen)));
    for (int32_t& id : ids) id = token(gen);
    const auto size = static_cast<int64_t>(ids.size());
    out.push_back({from_vector(ids, Shape({size})),
                   from_vector(std::vector<int32_t>{label(gen)}, Shape({}))});
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run(const char* mode, const datasets::Dataset& data, int64_t sequences, int epochs) {
  random::set_seed(1);
  Sequential model({layers::Input({-1}, DType::i32),
                    layers::Embedding(kVocab, 64, {.mask_zero = true}), layers::LSTM(128),
                    layers::Dense(kClasses)});
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true})});
  std::vector<double> seconds;
  for (int e = 0; e < epochs; ++e) {
    const auto start = std::chrono::steady_clock::now();
    model.fit(data, {.epochs = e + 1, .verbose = 0, .initial_epoch = e});
    seconds.push_back(seconds_since(start));
  }
  double later = 0;
  for (size_t e = 1; e < seconds.size(); ++e) later += seconds[e];
  later /= static_cast<double>(seconds.size() - 1);
  std::printf("%s: traces %lld, first epoch %.2f s, s/1000 sequences %.3f\n", mode,
              static_cast<long long>(model.trainer().train_stats().traces), seconds[0],
              later * 1000.0 / static_cast<double>(sequences));
}

}  // namespace

int main(int argc, char** argv) {
  int64_t sequences = 4000;
  int epochs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sequences") == 0) sequences = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--epochs") == 0) epochs = std::atoi(argv[i + 1]);
  }
  if (epochs < 2) epochs = 2;
  const auto data = datasets::Dataset::from_elements(make_sequences(sequences, 7))
                        .shuffle(static_cast<size_t>(sequences), 3);
  run("kiln padded per batch", data.padded_batch(kBatch), sequences, epochs);
  const std::vector<int64_t> boundaries{25, 50, 75, 100, 125, 150, 175, kMaxLength + 1};
  run("kiln bucketed",
      data.bucket_by_sequence_length(nullptr, boundaries,
                                     std::vector<int64_t>(boundaries.size() + 1, kBatch),
                                     {.pad_to_bucket_boundary = true}),
      sequences, epochs);
  return 0;
}
