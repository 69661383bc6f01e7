#pragma once
// The blocks of a caching allocator that work on other streams still uses when their owner frees
// them. Work on the device's own stream needs no bookkeeping: whatever is queued after a reuse
// runs after the work that used the block before. Work on another stream (NCCL's collectives)
// does: each such use is recorded with an event that completes after it, and a block freed with
// uses outstanding waits here until all of their events have completed; only then may the
// allocator hand it out again.
#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln {

// Event: movable, `bool done() const` once the work it was recorded after has completed; its
// destructor lets go of it. Not thread-safe: the allocator's lock guards it.
template <typename Event>
class DeferredFrees {
 public:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;
    bool operator==(const Block&) const = default;
  };

  // `ptr`, a block in use, is used by work that `event` completes after.
  void record_use(void* ptr, Event event) {
    std::vector<Event>& events = uses_[ptr];
    // A block used on every step (a gradient buffer) keeps only the uses not yet finished.
    forget_done(events);
    events.push_back(std::move(event));
  }

  // `ptr` (a block of `size` bytes) is freed. True when it may be reused at once; otherwise it
  // waits for its uses, and collect_ready() hands it back once they have finished.
  bool release(void* ptr, size_t size) {
    const auto it = uses_.find(ptr);
    if (it == uses_.end()) return true;
    std::vector<Event> events = std::move(it->second);
    uses_.erase(it);
    forget_done(events);
    if (events.empty()) return true;
    waiting_.push_back({{ptr, size}, std::move(events)});
    return false;
  }

  // The released blocks whose uses have all finished, no longer kept here.
  std::vector<Block> collect_ready() {
    std::vector<Block> ready;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      forget_done(it->events);
      if (it->events.empty()) {
        ready.push_back(it->block);
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
    return ready;
  }

  // The released blocks still waiting for their uses (for an allocator giving back everything).
  std::vector<Block> waiting() const {
    std::vector<Block> blocks;
    for (const Waiting& w : waiting_) blocks.push_back(w.block);
    return blocks;
  }

 private:
  struct Waiting {
    Block block;
    std::vector<Event> events;
  };

  static void forget_done(std::vector<Event>& events) {
    std::erase_if(events, [](const Event& e) { return e.done(); });
  }

  std::unordered_map<void*, std::vector<Event>> uses_;  // blocks in use, by pointer
  std::vector<Waiting> waiting_;
};

}  // namespace kiln
