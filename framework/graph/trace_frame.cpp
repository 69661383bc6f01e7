#include "kiln/framework/graph/trace_frame.h"

#include <atomic>

namespace kiln {
namespace {

thread_local uint32_t g_frame = 0;
thread_local TraceHooks* g_hooks = nullptr;
std::atomic<uint32_t> g_next_frame{1};

}  // namespace

uint32_t current_trace_frame() {
  return g_frame;
}

TraceHooks* current_trace_hooks() {
  return g_hooks;
}

TraceFrameScope::TraceFrameScope(TraceHooks* hooks)
    : id_(g_next_frame.fetch_add(1)), previous_id_(g_frame), previous_hooks_(g_hooks) {
  g_frame = id_;
  g_hooks = hooks;
}

TraceFrameScope::~TraceFrameScope() {
  g_frame = previous_id_;
  g_hooks = previous_hooks_;
}

}  // namespace kiln
