#pragma once
// The process's oneDNN CPU engine, a stream per thread, and a cache so each primitive is created
// once per shape rather than per call.
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace kiln::cpu {

dnnl::engine& onednn_engine();
dnnl::stream& onednn_stream();

// Whether oneDNN computes bfloat16 on this processor: oneDNN 2.6 has bfloat16 matmuls,
// convolutions and poolings only from AVX-512 up (not under ONEDNN_MAX_CPU_ISA=AVX2). Asked once,
// by making the smallest bfloat16 matmul.
bool onednn_has_bf16();

// Key: the integers that determine a primitive (shapes, flags, dtype).
struct PrimitiveKey {
  std::vector<int64_t> values;
  bool operator==(const PrimitiveKey&) const = default;
};
struct PrimitiveKeyHash {
  size_t operator()(const PrimitiveKey& k) const {
    size_t h = 0;
    for (int64_t v : k.values)
      h ^= std::hash<int64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
  }
};

template <typename Entry>
class PrimitiveCache {
 public:
  // Returns the cached entry for key, creating it with make() on first use.
  const Entry& get(const PrimitiveKey& key, const std::function<Entry()>& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(key, make()).first;
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<PrimitiveKey, Entry, PrimitiveKeyHash> entries_;
};

}  // namespace kiln::cpu
