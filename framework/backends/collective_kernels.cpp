// The collectives' kernels, one for every device: a tensor on a device the communicator takes (the
// host, and for NCCL its GPU) is reduced where it lies (start copies its input into its output and
// reduces that in place); another goes through a host copy, which the communicator reduces and
// wait copies back. The communicator carries the reduction on, so the kernels return at once.
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
  const int64_t bucket = attrs.get(attr::bucket);
  return bucket < 0 ? std::string("all_reduce")
                    : "all_reduce of gradient bucket " + std::to_string(bucket);
}

void all_reduce_start_kernel(const KernelContext& c) {
  const Tensor& in = c.inputs[0];
  const auto op = static_cast<ReduceOp>(c.attrs.get(attr::reduction));
  distributed::Communicator& world = distributed::world();
  if (world.takes(c.output.device())) {
    if (c.output.raw_data() != in.raw_data()) copy_into(c.output, in);
    const distributed::Ticket t = world.start_all_reduce(c.output, op, reduction_name(c.attrs));
    distributed::record_pending(c.output.raw_data(), {t, Tensor()});
    return;
  }
  const Tensor host = in.to(Device::cpu());  // a copy: the host is always taken
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
