#include "kiln/datasets/text/pad_sequences.h"

#include <algorithm>

#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {

Tensor pad_sequences(std::span<const Tensor> sequences, const PadSequencesOptions& options) {
  KILN_CHECK(options.maxlen >= -1, "pad_sequences: maxlen must be -1 (the longest) or >= 0, got ",
             options.maxlen);
  std::vector<int64_t> features;  // the dims after the time axis, shared by every sequence
  int64_t longest = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    KILN_CHECK(s.defined() && !s.is_symbolic() && s.device().is_cpu() && s.rank() >= 1,
               "pad_sequences: sequence ", i, " must be a CPU tensor of rank >= 1 with data");
    const std::vector<int64_t> f(s.shape().begin() + 1, s.shape().end());
    if (i == 0) features = f;
    KILN_CHECK(f == features, "pad_sequences: sequence ", i, " is ", s.shape(),
               " but sequence 0 is ", sequences[0].shape(),
               "; sequences may differ only in length (axis 0)");
    longest = std::max(longest, s.dim(0));
  }
  const int64_t maxlen = options.maxlen >= 0 ? options.maxlen : longest;
  std::vector<int64_t> dims{static_cast<int64_t>(sequences.size()), maxlen};
  dims.insert(dims.end(), features.begin(), features.end());
  Tensor out = full(Shape(std::move(dims)), options.value, options.dtype, Device::cpu());
  const int64_t step = Shape(features).numel();  // elements per time step
  const size_t item = dtype_size(options.dtype);
  auto* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    const int64_t kept = std::min(s.dim(0), maxlen);
    const int64_t first_kept = options.truncating == PadSide::pre ? s.dim(0) - kept : 0;
    const int64_t first_slot = options.padding == PadSide::pre ? maxlen - kept : 0;
    const auto* src = static_cast<const char*>(s.raw_data()) +
                      static_cast<size_t>(first_kept * step) * dtype_size(s.dtype());
    char* row =
        dst + static_cast<size_t>((static_cast<int64_t>(i) * maxlen + first_slot) * step) * item;
    convert_buffer(src, s.dtype(), row, options.dtype, static_cast<size_t>(kept * step));
  }
  return out;
}

Tensor pad_sequences(const std::vector<std::vector<int64_t>>& sequences,
                     const PadSequencesOptions& options) {
  std::vector<Tensor> tensors;
  tensors.reserve(sequences.size());
  for (const std::vector<int64_t>& s : sequences)
    tensors.push_back(
        from_vector(s, Shape({static_cast<int64_t>(s.size())}), DType::i64, Device::cpu()));
  return pad_sequences(tensors, options);
}

}  // namespace kiln::datasets
