#include "kiln/training/model/step_boundary.h"

#include <string>

#include "kiln/engine/function/tensor_spec.h"

namespace kiln {
namespace {

// Which boundary casts a call makes: all, or only those to a dtype no wider than the tensor's.
// Those go before the copy to the device (fewer bytes move, and an int64 range check reads
// host memory); the rest after it (uint8 images move as bytes).
enum class Casts { all, no_wider };

// Each tensor cast to its position's dtype. A cast that would lose values (floats into an
// integer input) is left to the step, which reports it.
std::vector<Tensor> cast_at_boundary(const std::vector<Tensor>& tensors,
                                     const std::vector<DType>& dtypes, const std::string& what,
                                     Casts casts) {
  std::vector<Tensor> out = tensors;
  for (size_t i = 0; i < out.size() && i < dtypes.size(); ++i) {
    if (!out[i].defined() || out[i].dtype() == dtypes[i] ||
        refuse_boundary_cast(out[i].dtype(), dtypes[i], /*allow_float_narrowing=*/true))
      continue;
    if (casts == Casts::all || dtype_size(dtypes[i]) <= dtype_size(out[i].dtype()))
      out[i] = boundary_cast(out[i], dtypes[i], what + " " + std::to_string(i));
  }
  return out;
}

}  // namespace

DType boundary_dtype(const Tensor& first, const TensorMeta* declared) {
  if (declared != nullptr && is_floating(first.dtype()) == is_floating(declared->dtype))
    return declared->dtype;
  return first.dtype();
}

std::vector<Tensor> to_device(const std::vector<Tensor>& tensors, const Device& device) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.defined() ? t.to(device) : t);
  return out;
}

Batch to_device(const Batch& batch, const Device& device) {
  return {to_device(batch.x, device), to_device(batch.y, device),
          to_device(batch.sample_weight, device)};
}

std::vector<Tensor> inputs_on_device(const std::vector<Tensor>& x, const std::vector<DType>& dtypes,
                                     const Device& device) {
  return cast_at_boundary(to_device(cast_at_boundary(x, dtypes, "input", Casts::no_wider), device),
                          dtypes, "input", Casts::all);
}

Batch batch_on_device(const Batch& batch, const BoundaryDTypes& dtypes, const Device& device) {
  const auto cast = [&dtypes](const Batch& b, Casts casts) {
    return Batch{cast_at_boundary(b.x, dtypes.x, "input", casts),
                 cast_at_boundary(b.y, dtypes.y, "target", casts),
                 cast_at_boundary(b.sample_weight, dtypes.sample_weight, "sample_weight", casts)};
  };
  return cast(to_device(cast(batch, Casts::no_wider), device), Casts::all);
}

std::vector<Tensor> inputs_cast(const std::vector<Tensor>& x, const std::vector<DType>& dtypes) {
  return cast_at_boundary(x, dtypes, "input", Casts::all);
}

}  // namespace kiln
