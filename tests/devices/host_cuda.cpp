#include "tests/devices/host_cuda.h"

#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::testing {
namespace {

class HostAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override {
    return backend_for(Device::cpu()).allocator(0).allocate(bytes);
  }
  void deallocate(void* ptr, size_t bytes) override {
    backend_for(Device::cpu()).allocator(0).deallocate(ptr, bytes);
  }
};

class HostCudaBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::cuda; }
  int device_count() const override { return 1; }
  Allocator& allocator(int) override { return allocator_; }
  void copy_from_host(void* dst, const void* src, size_t bytes, int) override {
    ++host_cuda_copies().from_host;
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, size_t bytes, int) override {
    ++host_cuda_copies().to_host;
    std::memcpy(dst, src, bytes);
  }
  void copy_on_device(void* dst, const void* src, size_t bytes, int) override {
    std::memcpy(dst, src, bytes);
  }
  void synchronize(int) override { host_cuda_faults().on_synchronize(); }

 private:
  HostAllocator allocator_;
};

constexpr auto kCpu = static_cast<size_t>(DeviceType::cpu);
constexpr auto kCuda = static_cast<size_t>(DeviceType::cuda);

// The table's CUDA slots before the stand-in took them, put back by TearDown.
std::array<KernelFn, kNumOps> saved_kernels{};
std::array<PrepareFn, kNumOps> saved_prepare{};

// The same tensor (storage, offset, shape) labelled as a CPU one, for the CPU kernel to accept.
Tensor on_cpu(const Tensor& t) {
  if (!t.defined()) return t;
  auto impl = std::make_shared<TensorImpl>(*t.impl());
  impl->meta.device = Device::cpu();
  return Tensor(std::move(impl));
}

std::vector<Tensor> on_cpu(std::span<const Tensor> tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(on_cpu(t));
  return out;
}

// Op `Op`'s CUDA kernel: its CPU kernel on the device tensors' host memory.
template <size_t Op>
void host_kernel(const KernelContext& c) {
  const std::vector<Tensor> inputs = on_cpu(c.inputs);
  const std::vector<Tensor> more = on_cpu(c.more_outputs);
  const Tensor output = on_cpu(c.output);
  op_table()[static_cast<OpId>(Op)].kernels[kCpu]({inputs, output, c.attrs, c.payload, more});
}

template <size_t... Ops>
constexpr std::array<KernelFn, kNumOps> host_kernels(std::index_sequence<Ops...>) {
  return {&host_kernel<Ops>...};
}

}  // namespace

HostCudaCopies& host_cuda_copies() {
  static HostCudaCopies copies;
  return copies;
}

void HostCudaFaults::inject(std::string fault) {
  const std::lock_guard lock(mutex_);
  pending_ = std::move(fault);
}

void HostCudaFaults::on_synchronize() {
  ++synchronizations_;
  const std::lock_guard lock(mutex_);
  if (pending_.empty()) return;
  throw Error(std::exchange(pending_, ""));
}

HostCudaFaults& host_cuda_faults() {
  static HostCudaFaults faults;
  return faults;
}

void HostCudaEnvironment::SetUp() {
  static HostCudaBackend backend;
  replace_cuda_backend(&backend);
  static constexpr std::array<KernelFn, kNumOps> kernels =
      host_kernels(std::make_index_sequence<kNumOps>());
  OpTable& table = op_table_for_testing();
  for (size_t i = 0; i < kNumOps; ++i) {
    OpDef& def = table[static_cast<OpId>(i)];
    saved_kernels[i] =
        std::exchange(def.kernels[kCuda], def.kernels[kCpu] != nullptr ? kernels[i] : nullptr);
    saved_prepare[i] = std::exchange(def.prepare[kCuda], nullptr);
  }
}

// Every test of the binary runs with the stand-in.
[[maybe_unused]] ::testing::Environment* const kHostCuda =
    ::testing::AddGlobalTestEnvironment(new HostCudaEnvironment);

void HostCudaEnvironment::TearDown() {
  OpTable& table = op_table_for_testing();
  for (size_t i = 0; i < kNumOps; ++i) {
    table[static_cast<OpId>(i)].kernels[kCuda] = saved_kernels[i];
    table[static_cast<OpId>(i)].prepare[kCuda] = saved_prepare[i];
  }
  replace_cuda_backend(nullptr);
}

}  // namespace kiln::testing
