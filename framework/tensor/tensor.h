#pragma once
#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/core/shape.h"
#include "kiln/framework/tensor/storage.h"

namespace kiln {

struct Node;

// Everything about a tensor but its data: what shape inference consumes and produces.
struct TensorMeta {
  DType dtype = DType::f32;
  Shape shape;
  Device device;
  bool operator==(const TensorMeta&) const = default;
};

// Shared state behind Tensor handles. A concrete tensor has storage; a symbolic one (a value in
// a graph being traced) has none and is defined by its producing node.
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  size_t offset = 0;  // bytes into storage
  TensorMeta meta;
  // The op that produced this tensor, when it was recorded for autodiff or tracing.
  std::shared_ptr<const Node> node;
  bool requires_grad = false;
};

// A reference-counted handle: copying a Tensor shares the data. Data is always contiguous and
// row-major; reshape and leading-axis slices are views over the same storage.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new uninitialized concrete tensor.
  static Tensor empty(const Shape& shape, DType dtype = DType::f32,
                      Device device = default_device());
  // A tensor without data standing for a value of a graph being traced; dims may be unknown.
  static Tensor symbolic(const TensorMeta& meta);
  // A view of this tensor's storage with another shape (same numel), at an element offset.
  Tensor view(const Shape& shape, int64_t element_offset = 0) const;

  bool defined() const { return impl_ != nullptr; }
  const TensorMeta& meta() const { return impl_->meta; }
  const Shape& shape() const { return impl_->meta.shape; }
  DType dtype() const { return impl_->meta.dtype; }
  const Device& device() const { return impl_->meta.device; }
  int rank() const { return shape().rank(); }
  int64_t dim(int i) const { return shape().dim(i); }
  int64_t numel() const { return shape().numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype()); }
  bool is_symbolic() const { return impl_->storage == nullptr; }

  // Raw device pointer; throws for symbolic tensors.
  void* raw_data() const;
  // Typed host pointer: checks dtype and that the tensor lives on the CPU.
  template <typename T>
  T* data() const;
  // Copies data out to a host vector (from any device).
  template <typename T>
  std::vector<T> to_vector() const;
  // The single element of a size-1 tensor, converted to T.
  template <typename T>
  T item() const;

  Tensor to(const Device& device) const;
  Tensor clone() const;  // a deep copy on the same device

  bool requires_grad() const { return impl_->requires_grad; }
  // Marks a leaf for autodiff; returns *this.
  Tensor& set_requires_grad(bool value);
  // A handle sharing the data but cut from autodiff history (symbolic: keeps its graph node).
  Tensor detach() const;
  const std::shared_ptr<const Node>& node() const { return impl_->node; }
  TensorImpl* impl() const { return impl_.get(); }

  std::string to_string() const;  // values, dtype and shape, NumPy-like; long axes elided

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& t);

// Creation. Shapes must be fully defined.
Tensor zeros(const Shape& shape, DType dtype = DType::f32, Device device = default_device());
Tensor ones(const Shape& shape, DType dtype = DType::f32, Device device = default_device());
Tensor full(const Shape& shape, double value, DType dtype = DType::f32,
            Device device = default_device());
Tensor scalar(double value, DType dtype = DType::f32, Device device = default_device());
// [start, stop) with step, like numpy.arange.
Tensor arange(double start, double stop, double step = 1, DType dtype = DType::f32,
              Device device = default_device());
Tensor arange(int64_t stop, DType dtype = DType::i64, Device device = default_device());
// Copies host values (converted to dtype) into a new tensor of the given shape.
template <typename T>
Tensor from_vector(std::span<const T> values, const Shape& shape, DType dtype = dtype_of<T>(),
                   Device device = default_device());
template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, DType dtype = dtype_of<T>(),
                   Device device = default_device()) {
  return from_vector(std::span<const T>(values), shape, dtype, device);
}
// String tensors (DType::string, CPU only) from host strings.
Tensor strings(std::span<const std::string> values, const Shape& shape);
Tensor strings(std::span<const std::string> values);  // 1-D
Tensor string_scalar(std::string value);
// Copies `count` host elements of `dtype` from src to dst: memcpy, or string assignment.
void copy_host_elements(const void* src, void* dst, int64_t count, DType dtype);

Tensor tensor(std::initializer_list<float> values);                      // 1-D float32
Tensor tensor(std::initializer_list<float> values, const Shape& shape);  // float32

}  // namespace kiln
