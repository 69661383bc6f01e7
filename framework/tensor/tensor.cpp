#include "kiln/framework/tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"

namespace kiln {

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  KILN_CHECK(shape.is_fully_defined(), "cannot allocate a tensor of unknown shape ", shape);
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = {dtype, shape, device};
  if (dtype == DType::string) {
    KILN_CHECK(device.is_cpu(), "string tensors live on the CPU, not on ", device);
    impl->storage = Storage::allocate_strings(static_cast<size_t>(shape.numel()));
    return Tensor(std::move(impl));
  }
  // Never zero bytes: every tensor has a valid, aligned data pointer.
  const size_t bytes = std::max<size_t>(static_cast<size_t>(shape.numel()) * dtype_size(dtype), 1);
  impl->storage = Storage::allocate(device, bytes);
  return Tensor(std::move(impl));
}

Tensor Tensor::symbolic(const TensorMeta& meta) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = meta;
  return Tensor(std::move(impl));
}

Tensor Tensor::view(const Shape& shape, int64_t element_offset) const {
  if (is_symbolic()) throw SymbolicValueError("view() of a symbolic tensor");
  KILN_CHECK(shape.numel() + element_offset <= numel() || element_offset == 0, "view ", shape,
             " at offset ", element_offset, " exceeds tensor of shape ", this->shape());
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = impl_->storage;
  impl->offset = impl_->offset + static_cast<size_t>(element_offset) * dtype_size(dtype());
  impl->meta = {dtype(), shape, device()};
  return Tensor(std::move(impl));
}

void* Tensor::raw_data() const {
  KILN_CHECK(defined(), "use of an undefined tensor");
  if (is_symbolic())
    throw SymbolicValueError(detail::concat(
        "tensor of shape ", shape(),
        " is symbolic (being traced) and has no data; values exist only when the traced "
        "function runs"));
  return static_cast<char*>(impl_->storage->data()) + impl_->offset;
}

template <typename T>
T* Tensor::data() const {
  KILN_CHECK(dtype() == dtype_of<T>(), "data<", dtype_name(dtype_of<T>()),
             ">() on a tensor of dtype ", dtype_name(dtype()));
  KILN_CHECK(device().is_cpu(), "data() on a tensor on ", device(), "; call .to(cpu) first");
  return static_cast<T*>(raw_data());
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  const Tensor host = device().is_cpu() ? *this : to(Device::cpu());
  std::vector<T> out(static_cast<size_t>(numel()));
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> tmp(out.size());
    convert_buffer(host.raw_data(), dtype(), tmp.data(), DType::u8, tmp.size());
    for (size_t i = 0; i < tmp.size(); ++i) out[i] = tmp[i] != 0;
  } else {
    convert_buffer(host.raw_data(), dtype(), out.data(), dtype_of<T>(), out.size());
  }
  return out;
}

template <typename T>
T Tensor::item() const {
  KILN_CHECK(numel() == 1, "item() needs a tensor with one element, got shape ", shape());
  return to_vector<T>()[0];
}

#define KILN_INSTANTIATE_ACCESSORS(T)                   \
  template T* Tensor::data<T>() const;                  \
  template std::vector<T> Tensor::to_vector<T>() const; \
  template T Tensor::item<T>() const;
KILN_INSTANTIATE_ACCESSORS(float)
KILN_INSTANTIATE_ACCESSORS(double)
KILN_INSTANTIATE_ACCESSORS(int32_t)
KILN_INSTANTIATE_ACCESSORS(int64_t)
KILN_INSTANTIATE_ACCESSORS(uint8_t)
KILN_INSTANTIATE_ACCESSORS(bool)
KILN_INSTANTIATE_ACCESSORS(float16)
KILN_INSTANTIATE_ACCESSORS(bfloat16)
#undef KILN_INSTANTIATE_ACCESSORS
template std::string* Tensor::data<std::string>() const;

void copy_host_elements(const void* src, void* dst, int64_t count, DType dtype) {
  if (dtype == DType::string) {
    std::copy_n(static_cast<const std::string*>(src), count, static_cast<std::string*>(dst));
    return;
  }
  std::memcpy(dst, src, static_cast<size_t>(count) * dtype_size(dtype));
}

Tensor strings(std::span<const std::string> values, const Shape& shape) {
  KILN_CHECK(shape.is_fully_defined() && static_cast<int64_t>(values.size()) == shape.numel(),
             "strings: ", values.size(), " values do not fill shape ", shape);
  Tensor out = Tensor::empty(shape, DType::string, Device::cpu());
  std::copy(values.begin(), values.end(), out.data<std::string>());
  return out;
}
Tensor strings(std::span<const std::string> values) {
  return strings(values, Shape{static_cast<int64_t>(values.size())});
}
Tensor string_scalar(std::string value) {
  Tensor out = Tensor::empty(Shape{}, DType::string, Device::cpu());
  *out.data<std::string>() = std::move(value);
  return out;
}

Tensor Tensor::to(const Device& target) const {
  if (target == device()) return *this;
  KILN_CHECK(dtype() != DType::string,
             "string tensors stay on the CPU; vectorize them "
             "(TextVectorization, StringLookup, Hashing) before they go to ",
             target);
  Tensor out = empty(shape(), dtype(), target);
  const size_t bytes = nbytes();
  if (bytes == 0) return out;
  if (device().is_cpu()) {
    backend_for(target).copy_from_host(out.raw_data(), raw_data(), bytes, target.index);
  } else if (target.is_cpu()) {
    backend_for(device()).copy_to_host(out.raw_data(), raw_data(), bytes, device().index);
  } else {
    // Device to device through the host keeps this path backend-agnostic; peer copies belong
    // to the distribution layer.
    return to(Device::cpu()).to(target);
  }
  return out;
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape(), dtype(), device());
  if (nbytes() == 0) return out;
  if (device().is_cpu())
    copy_host_elements(raw_data(), out.raw_data(), numel(), dtype());
  else
    backend_for(device()).copy_on_device(out.raw_data(), raw_data(), nbytes(), device().index);
  return out;
}

Tensor& Tensor::set_requires_grad(bool value) {
  KILN_CHECK(!value || is_floating(dtype()), "only floating tensors can require gradients, got ",
             dtype_name(dtype()));
  impl_->requires_grad = value;
  return *this;
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = impl_->storage;
  impl->offset = impl_->offset;
  impl->meta = impl_->meta;
  // A symbolic tensor is its producing node: keep it, only autodiff is cut.
  if (is_symbolic()) impl->node = impl_->node;
  return Tensor(std::move(impl));
}

Tensor full(const Shape& shape, double value, DType dtype, Device device) {
  Tensor host = Tensor::empty(shape, dtype, Device::cpu());
  visit_dtype(dtype, [&]<typename T>() {
    T* p = host.data<T>();
    const T v = convert_value<T>(value);
    const int64_t n = host.numel();
    for (int64_t i = 0; i < n; ++i) p[i] = v;
  });
  return host.to(device);
}

Tensor zeros(const Shape& shape, DType dtype, Device device) {
  return full(shape, 0.0, dtype, device);
}
Tensor ones(const Shape& shape, DType dtype, Device device) {
  return full(shape, 1.0, dtype, device);
}
Tensor scalar(double value, DType dtype, Device device) {
  return full({}, value, dtype, device);
}

Tensor arange(double start, double stop, double step, DType dtype, Device device) {
  KILN_CHECK(step != 0, "arange: step must be nonzero");
  const auto n = static_cast<int64_t>(std::max(0.0, std::ceil((stop - start) / step)));
  Tensor host = Tensor::empty({n}, dtype, Device::cpu());
  visit_dtype(dtype, [&]<typename T>() {
    T* p = host.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert_value<T>(start + static_cast<double>(i) * step);
  });
  return host.to(device);
}

Tensor arange(int64_t stop, DType dtype, Device device) {
  return arange(0.0, static_cast<double>(stop), 1.0, dtype, device);
}

template <typename T>
Tensor from_vector(std::span<const T> values, const Shape& shape, DType dtype, Device device) {
  KILN_CHECK(shape.is_fully_defined() && static_cast<int64_t>(values.size()) == shape.numel(),
             "from_vector: ", values.size(), " values do not fill shape ", shape);
  Tensor host = Tensor::empty(shape, dtype, Device::cpu());
  convert_buffer(values.data(), dtype_of<T>(), host.raw_data(), dtype, values.size());
  return host.to(device);
}

#define KILN_INSTANTIATE_FROM_VECTOR(T) \
  template Tensor from_vector<T>(std::span<const T>, const Shape&, DType, Device);
KILN_INSTANTIATE_FROM_VECTOR(float)
KILN_INSTANTIATE_FROM_VECTOR(double)
KILN_INSTANTIATE_FROM_VECTOR(int32_t)
KILN_INSTANTIATE_FROM_VECTOR(int64_t)
KILN_INSTANTIATE_FROM_VECTOR(uint8_t)
#undef KILN_INSTANTIATE_FROM_VECTOR

Tensor tensor(std::initializer_list<float> values) {
  return from_vector(std::span<const float>(values.begin(), values.size()),
                     {static_cast<int64_t>(values.size())});
}
Tensor tensor(std::initializer_list<float> values, const Shape& shape) {
  return from_vector(std::span<const float>(values.begin(), values.size()), shape);
}

}  // namespace kiln
