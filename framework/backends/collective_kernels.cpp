// The collectives' kernels, one for every device: a tensor on a device the communicator takes (the
// host for MPI, a GPU for NCCL) is reduced where it lies (start copies its input into its output
// and reduces that in place); another goes through a host copy, which the communicator reduces
// and wait copies back. The communicator's own
// thread carries the reduction, so the kernels return at once.
#include <string>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/distributed/pending_reductions.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln {
namespace {

using distributed::PendingReduction;
using distributed::ReduceOp;

std::string reduction_name(const Attrs& attrs) {
  const int64_t bucket = attrs.get_int("bucket");
  return bucket < 0 ? std::string("all_reduce")
                    : "all_reduce of gradient bucket " + std::to_string(bucket);
}

void all_reduce_start_kernel(const KernelContext& c) {
  const Tensor& in = c.inputs[0];
  const auto op = static_cast<ReduceOp>(c.attrs.get_int("reduction"));
  distributed::Communicator& world = distributed::world();
  if (world.takes(c.output.device())) {
    if (c.output.raw_data() != in.raw_data()) copy_into(c.output, in);
    const distributed::Ticket t = world.start_all_reduce(c.output, op, reduction_name(c.attrs));
    distributed::record_pending(c.output.raw_data(), {t, Tensor()});
    return;
  }
  const Device& device = in.device();
  const Tensor host = Tensor::empty(in.shape(), in.dtype(), Device::cpu());
  backend_for(device).copy_to_host(host.raw_data(), in.raw_data(), in.nbytes(), device.index);
  const distributed::Ticket t = world.start_all_reduce(host, op, reduction_name(c.attrs));
  distributed::record_pending(c.output.raw_data(), {t, host});
}

void all_reduce_wait_kernel(const KernelContext& c) {
  const Tensor& in = c.inputs[0];
  const PendingReduction p = distributed::take_pending(in.raw_data());
  distributed::world().wait(p.ticket);
  if (p.host.defined()) {
    const Device& device = c.output.device();
    backend_for(device).copy_from_host(c.output.raw_data(), p.host.raw_data(), p.host.nbytes(),
                                       device.index);
  } else if (c.output.raw_data() != in.raw_data()) {
    copy_into(c.output, in);
  }
}

}  // namespace

void register_collective_kernels(OpTable& t) {
  for (const DeviceType device : {DeviceType::cpu, DeviceType::cuda}) {
    t.set_kernel(OpId::all_reduce_start, device, all_reduce_start_kernel);
    t.set_kernel(OpId::all_reduce_wait, device, all_reduce_wait_kernel);
  }
}

}  // namespace kiln
