#pragma once
// A PreparedKernel over a call object built once from a step's shapes (Call(c)) whose run(c)
// then only binds the data: oneDNN primitives with their memory handles, a fused program with
// its scratch. The plain kernels build the same call object per call.
#include "kiln/framework/ops/op_def.h"

namespace kiln::cpu {

template <typename Call>
class PreparedCall : public PreparedKernel {
 public:
  explicit PreparedCall(const KernelContext& c) : call_(c) {}
  void run(const KernelContext& c) const override { call_.run(c); }

 private:
  mutable Call call_;  // the executor serializes runs of a step; only bound data changes
};

}  // namespace kiln::cpu
