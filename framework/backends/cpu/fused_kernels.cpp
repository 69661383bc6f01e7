// CPU kernel of fused_elementwise. The program runs block by block over the output: each
// instruction fills one block-sized register, so the registers stay in L1 and a chain of n ops
// reads its inputs and writes its output once instead of n times.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "kiln/framework/backends/cpu/block_loops.h"
#include "kiln/framework/backends/cpu/broadcast_plan.h"
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/backends/cpu/prepared_call.h"
#include "kiln/framework/graph/fused_program.h"
#include "kiln/framework/ops/elementwise_dispatch.h"

namespace kiln::cpu {
namespace {

// Elements per block (8 KiB of float): with scratch slots reused as registers die, a chain's
// few live registers stay in L1, and the per-block dispatch (one indirect call per
// instruction) is noise; smaller blocks pay the dispatch, larger ones gain nothing
// (docs/framework.md, "Measured choices").
constexpr int64_t kBlock = 2048;

// One instruction's loop with its functor (the op's attributes), at the instruction set level
// the plan was made for.
template <typename C>
class BlockFn {
 public:
  template <typename F>
  BlockFn(BlockLoop<C> loop, F functor) : loop_(loop) {
    static_assert(std::is_trivially_copyable_v<F> && sizeof(F) <= sizeof(functor_));
    std::memcpy(functor_.data(), &functor, sizeof(F));
  }
  explicit BlockFn(BlockLoop<C> loop) : loop_(loop) {}

  void operator()(const C* const* args, C* out, int64_t n) const {
    loop_(functor_.data(), args, out, n);
  }

 private:
  BlockLoop<C> loop_;
  alignas(8) std::array<std::byte, 16> functor_{};
};

template <typename C>
BlockFn<C> block_fn(const FusedProgram::Instruction& ins, Splat splat) {
  const CpuIsa isa = cpu_isa();
  if (ins.op == OpId::where) return BlockFn<C>(KILN_BLOCK_LOOP(isa, select<C>));
  if (ins.op == OpId::cast) {
    // The program holds bool as 0 and 1 in C, so a cast either tests or copies.
    if (ins.attrs.get(attr::dtype) == DType::boolean)
      return BlockFn<C>(KILN_BLOCK_LOOP(isa, to_bool<C>));
    return BlockFn<C>(KILN_BLOCK_LOOP(isa, copy<C>));
  }
  std::optional<BlockFn<C>> run;
  const bool known = fn::visit_elementwise_functor(ins.op, ins.attrs, [&]<typename F>(F f) {
    if constexpr (std::is_invocable_v<F, C>) {
      run.emplace(KILN_BLOCK_LOOP(isa, unary<C, F>), f);
    } else {
      switch (splat) {
        case Splat::first:
          run.emplace(KILN_BLOCK_LOOP(isa, binary<C, F, Splat::first>), f);
          break;
        case Splat::second:
          run.emplace(KILN_BLOCK_LOOP(isa, binary<C, F, Splat::second>), f);
          break;
        case Splat::none:
          run.emplace(KILN_BLOCK_LOOP(isa, binary<C, F, Splat::none>), f);
          break;
      }
    }
  });
  KILN_CHECK(known, "fused_elementwise: ", op_def(ins.op).name, " is not an elementwise op");
  return *run;
}

// Copies output elements [begin, begin + n) of an input broadcast to the output into dst,
// converting to C (bool inputs become 0 and 1).
template <typename In, typename C>
void gather(const void* data, const BroadcastPlan<1>& plan, int64_t begin, int64_t n, C* dst) {
  const In* src = static_cast<const In*>(data);
  const int64_t stride = plan.inner_stride(0);
  plan.for_each_row(begin, begin + n,
                    [&](int64_t pos, const std::array<int64_t, 1>& off, int64_t len) {
                      C* d = dst + (pos - begin);
                      const In* s = src + off[0];
                      if (stride == 0) {
                        std::fill_n(d, len, static_cast<C>(s[0]));
                      } else if (stride == 1) {
                        std::copy_n(s, len, d);
                      } else {
                        for (int64_t i = 0; i < len; ++i) d[i] = static_cast<C>(s[i * stride]);
                      }
                    });
}

// How a block of one input is read: in place when it already is a C array of the output's
// size, as its one value when it is a splat, else gathered (broadcast, scalar, bool) into its
// scratch slot. Built from the input's meta; bind() points it at the data of a run.
template <typename C>
class InputReader {
 public:
  InputReader(const TensorMeta& in, const Shape& out, bool splat)
      : is_bool_(in.dtype == DType::boolean), splat_(splat) {
    KILN_CHECK(in.dtype == dtype_of<C>() || is_bool_, "fused_elementwise: an input of dtype ",
               dtype_name(in.dtype), " in a program computing in ", dtype_name(dtype_of<C>()));
    if (!splat && (is_bool_ || in.shape.numel() != out.numel())) {
      plan_.emplace(std::array<const Shape*, 1>{&in.shape}, out);
      load_ = is_bool_ ? &gather<bool, C> : &gather<C, C>;
    }
  }

  void bind(const Tensor& in) {
    data_ = in.raw_data();
    if (splat_)
      value_ = is_bool_ ? static_cast<C>(*static_cast<const bool*>(data_))
                        : *static_cast<const C*>(data_);
  }

  bool needs_slot() const { return plan_.has_value(); }

  const C* read(int64_t begin, int64_t n, C* slot) const {
    if (splat_) return &value_;
    if (!plan_) return static_cast<const C*>(data_) + begin;
    load_(data_, *plan_, begin, n, slot);
    return slot;
  }

 private:
  bool is_bool_;
  bool splat_;
  const void* data_ = nullptr;
  C value_{};
  std::optional<BroadcastPlan<1>> plan_;
  void (*load_)(const void*, const BroadcastPlan<1>&, int64_t, int64_t, C*) = nullptr;
};

// One instruction with its operand registers and the scratch slot of its result (-1: the
// output itself).
template <typename C>
struct Step {
  BlockFn<C> run;
  std::array<int, 3> operands{};  // unused ones read register 0, which always exists
  int slot = -1;
};

// The program ready to run on these inputs, with registers mapped onto as few block-sized
// scratch slots as are live at once, so longer blocks still fit in L1.
template <typename C>
struct Plan {
  std::vector<InputReader<C>> readers;
  std::vector<int> reader_slots;  // -1: read without scratch
  std::vector<Step<C>> steps;
  int num_slots = 0;

  Plan(const FusedProgram& program, const KernelContext& c, bool direct_out) {
    const auto num_inputs = static_cast<size_t>(program.num_inputs);
    KILN_CHECK(c.inputs.size() == num_inputs, "fused_elementwise: the program reads ", num_inputs,
               " inputs, the node has ", c.inputs.size());
    const std::vector<bool> splat = splat_inputs(program, c);
    std::vector<int> free_slots;
    auto take_slot = [&] {
      if (free_slots.empty()) return num_slots++;
      const int slot = free_slots.back();
      free_slots.pop_back();
      return slot;
    };
    readers.reserve(num_inputs);
    for (size_t k = 0; k < num_inputs; ++k) {
      readers.emplace_back(c.inputs[k].meta(), c.output.shape(), splat[k]);
      reader_slots.push_back(readers.back().needs_slot() ? take_slot() : -1);
    }
    const auto& ins = program.instructions;
    std::vector<size_t> last_use(num_inputs + ins.size(), 0);
    for (size_t k = 0; k < ins.size(); ++k)
      for (int r : ins[k].operands) last_use[static_cast<size_t>(r)] = k;
    std::vector<int> slot_of(num_inputs + ins.size(), -1);
    for (size_t k = 0; k < ins.size(); ++k) {
      const auto& ops = ins[k].operands;
      std::array<int, 3> operands{};
      Splat s = Splat::none;
      for (size_t i = 0; i < ops.size(); ++i) {
        const auto r = static_cast<size_t>(ops[i]);
        operands[i] = ops[i];
        if (r < num_inputs && splat[r]) s = i == 0 ? Splat::first : Splat::second;
        // A result dies at its last reader, which may then write over it: every op reads
        // element i before writing element i.
        if (r >= num_inputs && last_use[r] == k && slot_of[r] >= 0) {
          free_slots.push_back(slot_of[r]);
          slot_of[r] = -1;
        }
      }
      Step<C> step{block_fn<C>(ins[k], s), operands};
      const bool last = k + 1 == ins.size();
      step.slot = last && direct_out ? -1 : take_slot();
      slot_of[num_inputs + k] = step.slot;
      steps.push_back(std::move(step));
    }
  }

  // A scalar input is a splat when only binary ops read it, each beside an operand that is not
  // a scalar too; anywhere else it is spread over a block.
  static std::vector<bool> splat_inputs(const FusedProgram& program, const KernelContext& c) {
    auto scalar = [&](int reg) {
      return reg < program.num_inputs && c.inputs[static_cast<size_t>(reg)].numel() == 1;
    };
    std::vector<bool> splat(c.inputs.size());
    for (size_t k = 0; k < splat.size(); ++k) splat[k] = scalar(static_cast<int>(k));
    for (const auto& ins : program.instructions) {
      const auto& ops = ins.operands;
      for (size_t i = 0; i < ops.size(); ++i)
        if (scalar(ops[i]) && (ops.size() != 2 || scalar(ops[1 - i])))
          splat[static_cast<size_t>(ops[i])] = false;
    }
    return splat;
  }
};

const FusedProgram& program_of(const KernelContext& c) {
  const auto* program = dynamic_cast<const FusedProgram*>(c.payload);
  KILN_CHECK(program != nullptr, "fused_elementwise: the node carries no fused program");
  KILN_CHECK(!program->instructions.empty(), "fused_elementwise: an empty program");
  return *program;
}

// A fused program bound to one step's shapes: its plan, and per pool thread the scratch slots
// and register table, made once; run() binds the inputs and output and runs the blocks.
template <typename C>
class FusedCall {
 public:
  explicit FusedCall(const KernelContext& c)
      : direct_out_(c.output.dtype() == dtype_of<C>()),
        plan_(program_of(c), c, direct_out_),
        block_(static_cast<size_t>(std::min(kBlock, std::max<int64_t>(c.output.numel(), 1)))) {
    for (int t = 0; t < omp_get_max_threads(); ++t) {
      scratch_.push_back(std::make_unique_for_overwrite<C[]>(
          std::max<size_t>(static_cast<size_t>(plan_.num_slots) * block_, 1)));
      regs_.emplace_back(plan_.readers.size() + plan_.steps.size());
    }
  }

  void run(const KernelContext& c) {
    // A C output takes the last instruction's result directly; a bool one is converted from it.
    C* out_c = direct_out_ ? static_cast<C*>(c.output.raw_data()) : nullptr;
    bool* out_bool = direct_out_ ? nullptr : static_cast<bool*>(c.output.raw_data());
    for (size_t k = 0; k < plan_.readers.size(); ++k) plan_.readers[k].bind(c.inputs[k]);
    const size_t num_inputs = plan_.readers.size();
    parallel_for(c.output.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
      const auto thread = static_cast<size_t>(omp_get_thread_num());
      KILN_CHECK(thread < scratch_.size(), "fused_elementwise: planned for ", scratch_.size(),
                 " threads, running on more");
      C* scratch = scratch_[thread].get();
      std::vector<const C*>& regs = regs_[thread];
      auto slot = [&](int s) {
        return s < 0 ? nullptr : scratch + static_cast<size_t>(s) * block_;
      };
      for (int64_t pos = begin; pos < end; pos += kBlock) {
        const int64_t n = std::min(kBlock, end - pos);
        for (size_t k = 0; k < num_inputs; ++k)
          regs[k] = plan_.readers[k].read(pos, n, slot(plan_.reader_slots[k]));
        for (size_t k = 0; k < plan_.steps.size(); ++k) {
          const Step<C>& step = plan_.steps[k];
          const std::array<const C*, 3> args{regs[static_cast<size_t>(step.operands[0])],
                                             regs[static_cast<size_t>(step.operands[1])],
                                             regs[static_cast<size_t>(step.operands[2])]};
          C* result = step.slot < 0 ? out_c + pos : slot(step.slot);
          step.run(args.data(), result, n);
          regs[num_inputs + k] = result;
        }
        if (!direct_out_) {
          const C* last = regs.back();
          for (int64_t i = 0; i < n; ++i) out_bool[pos + i] = last[i] != C(0);
        }
      }
    });
  }

 private:
  bool direct_out_;
  Plan<C> plan_;
  size_t block_;
  std::vector<std::unique_ptr<C[]>> scratch_;
  std::vector<std::vector<const C*>> regs_;
};

constexpr uint32_t kFusedDTypes = dtype_bit(DType::f32) | dtype_bit(DType::f64);

void fused_elementwise_kernel(const KernelContext& c) {
  visit_dtypes<kFusedDTypes>(program_of(c).compute_dtype, "fused_elementwise",
                             [&]<typename C>() { FusedCall<C>(c).run(c); });
}

std::unique_ptr<PreparedKernel> prepare_fused_elementwise(const KernelContext& c) {
  std::unique_ptr<PreparedKernel> prepared;
  visit_dtypes<kFusedDTypes>(program_of(c).compute_dtype, "fused_elementwise", [&]<typename C>() {
    prepared = std::make_unique<PreparedCall<FusedCall<C>>>(c);
  });
  return prepared;
}

}  // namespace

void register_fused_kernels(OpTable& t) {
  t.set_kernel(OpId::fused_elementwise, DeviceType::cpu, fused_elementwise_kernel);
  t.set_prepare(OpId::fused_elementwise, DeviceType::cpu, prepare_fused_elementwise);
}

}  // namespace kiln::cpu
