#pragma once
// The hand-over between the all_reduce_start and all_reduce_wait kernels: start records the
// ticket of the reduction it issued under its output buffer; wait, whose input is that buffer,
// takes it back. A device kernel also parks the host copy it reduces there.
#include "kiln/framework/distributed/communicator.h"

namespace kiln::distributed {

struct PendingReduction {
  Ticket ticket = 0;
  Tensor host;  // the host copy being reduced, for a device tensor; undefined otherwise
};

void record_pending(const void* buffer, PendingReduction pending);
// Throws when no reduction was started on `buffer` (a wait without its start).
PendingReduction take_pending(const void* buffer);

}  // namespace kiln::distributed
