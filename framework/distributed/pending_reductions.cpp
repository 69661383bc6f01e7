#include "kiln/framework/distributed/pending_reductions.h"

#include <mutex>
#include <unordered_map>

#include "kiln/framework/core/error.h"

namespace kiln::distributed {
namespace {

std::mutex mutex;
std::unordered_map<const void*, PendingReduction>& pending() {
  static std::unordered_map<const void*, PendingReduction> map;
  return map;
}

}  // namespace

void record_pending(const void* buffer, PendingReduction p) {
  const std::lock_guard lock(mutex);
  pending()[buffer] = std::move(p);
}

PendingReduction take_pending(const void* buffer) {
  const std::lock_guard lock(mutex);
  const auto it = pending().find(buffer);
  KILN_CHECK(it != pending().end(), "all_reduce_wait: no all_reduce_start issued on its input");
  PendingReduction p = std::move(it->second);
  pending().erase(it);
  return p;
}

}  // namespace kiln::distributed
