// CPU kernel of fused_elementwise. The program runs block by block over the output: each
// instruction fills one block-sized register, so the registers stay in L1 and a chain of n ops
// reads its inputs and writes its output once instead of n times. A bfloat16 program computes in
// float and rounds every instruction's result to bfloat16, as each separate op rounds on store,
// so its values are theirs bit for bit.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/framework/backends/cpu/block_loops.h"
#include "kiln/framework/backends/cpu/broadcast_plan.h"
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/backends/cpu/prepared_call.h"
#include "kiln/framework/core/convert.h"
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
// converting to C (bool inputs become 0 and 1, bfloat16 ones floats).
template <typename In, typename C>
void gather(const void* data, const BroadcastPlan<1>& plan, int64_t begin, int64_t n, C* dst) {
  const In* src = static_cast<const In*>(data);
  const int64_t stride = plan.inner_stride(0);
  plan.for_each_row(begin, begin + n,
                    [&](int64_t pos, const std::array<int64_t, 1>& off, int64_t len) {
                      C* d = dst + (pos - begin);
                      const In* s = src + off[0];
                      if (stride == 0) {
                        std::fill_n(d, len, convert_value<C>(s[0]));
                      } else if (stride == 1) {
                        if constexpr (std::is_same_v<In, bfloat16>) {
                          // At the processor's level: the baseline loop took twice as long.
                          KILN_BLOCK_LOOP(cpu_isa(), widen_from_bf16)(s, d, len);
                        } else {
#pragma omp simd
                          for (int64_t i = 0; i < len; ++i) d[i] = convert_value<C>(s[i]);
                        }
                      } else {
                        for (int64_t i = 0; i < len; ++i) d[i] = convert_value<C>(s[i * stride]);
                      }
                    });
}

// The loader of an input stored as `stored` (C itself, bool, or bfloat16 under a float program).
template <typename C>
auto loader_of(DType stored)
    -> void (*)(const void*, const BroadcastPlan<1>&, int64_t, int64_t, C*) {
  if (stored == DType::boolean) return &gather<bool, C>;
  if constexpr (std::is_same_v<C, float>)
    if (stored == DType::bf16) return &gather<bfloat16, C>;
  return &gather<C, C>;
}

// One stored value as C.
template <typename C>
C value_of(const void* data, DType stored) {
  if (stored == DType::boolean) return convert_value<C>(*static_cast<const bool*>(data));
  if constexpr (std::is_same_v<C, float>)
    if (stored == DType::bf16) return convert_value<C>(*static_cast<const bfloat16*>(data));
  return *static_cast<const C*>(data);
}

// How a block of one input is read: in place when it already is a C array of the output's
// size, as its one value when it is a splat, else gathered (broadcast, scalar, bool, bfloat16)
// into its scratch slot. Built from the input's meta; bind() points it at the data of a run.
template <typename C>
class InputReader {
 public:
  // `compute`: the program's dtype, C or bfloat16 (computed in float).
  InputReader(const TensorMeta& in, const Shape& out, bool splat, DType compute)
      : stored_(in.dtype), splat_(splat) {
    KILN_CHECK(in.dtype == compute || in.dtype == DType::boolean,
               "fused_elementwise: an input of dtype ", dtype_name(in.dtype),
               " in a program computing in ", dtype_name(compute));
    if (!splat && (in.dtype != dtype_of<C>() || in.shape.numel() != out.numel())) {
      plan_.emplace(std::array<const Shape*, 1>{&in.shape}, out);
      load_ = loader_of<C>(in.dtype);
    }
  }

  void bind(const Tensor& in) {
    data_ = in.raw_data();
    if (splat_) value_ = value_of<C>(data_, stored_);
  }

  bool needs_slot() const { return plan_.has_value(); }

  const C* read(int64_t begin, int64_t n, C* slot) const {
    if (splat_) return &value_;
    if (!plan_) return static_cast<const C*>(data_) + begin;
    load_(data_, *plan_, begin, n, slot);
    return slot;
  }

 private:
  DType stored_;
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
  bool rounds = false;  // a bfloat16 program's arithmetic: its result is rounded to bfloat16
};

// Whether an instruction's result is one of its operands' values or 0 and 1 (where, cast, a
// comparison): in a bfloat16 program it needs no rounding.
bool keeps_values(const FusedProgram::Instruction& ins) {
  if (ins.op == OpId::where || ins.op == OpId::cast) return true;
  bool keeps = false;
  fn::visit_elementwise_functor(ins.op, ins.attrs, [&]<typename F>(F) {
    if constexpr (std::is_invocable_v<F, float>)
      keeps = std::is_same_v<std::invoke_result_t<F, float>, bool>;
    else
      keeps = std::is_same_v<std::invoke_result_t<F, float, float>, bool>;
  });
  return keeps;
}

// The program ready to run on these inputs, with registers mapped onto as few block-sized
// scratch slots as are live at once, so longer blocks still fit in L1.
template <typename C>
struct Plan {
  std::vector<InputReader<C>> readers;
  std::vector<int> reader_slots;  // -1: read without scratch
  std::vector<Step<C>> steps;
  int num_slots = 0;

  // Rounds a result block to bfloat16 in a bfloat16 program; empty otherwise.
  std::optional<BlockFn<C>> round;

  Plan(const FusedProgram& program, const KernelContext& c, bool direct_out) {
    if constexpr (std::is_same_v<C, float>)
      if (program.compute_dtype == DType::bf16)
        round.emplace(KILN_BLOCK_LOOP(cpu_isa(), round_to_bf16));
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
      readers.emplace_back(c.inputs[k].meta(), c.output.shape(), splat[k], program.compute_dtype);
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
      step.rounds = round.has_value() && !keeps_values(ins[k]);
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
    // A C output takes the last instruction's result directly; a bool or bfloat16 one is
    // converted from it.
    C* out_c = direct_out_ ? static_cast<C*>(c.output.raw_data()) : nullptr;
    bool* out_bool =
        c.output.dtype() == DType::boolean ? static_cast<bool*>(c.output.raw_data()) : nullptr;
    bfloat16* out_bf16 =
        c.output.dtype() == DType::bf16 ? static_cast<bfloat16*>(c.output.raw_data()) : nullptr;
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
          if (step.rounds) {
            const C* const rounded[] = {result};
            (*plan_.round)(rounded, result, n);
          }
          regs[num_inputs + k] = result;
        }
        if (out_bool != nullptr) {
          const C* last = regs.back();
          for (int64_t i = 0; i < n; ++i) out_bool[pos + i] = last[i] != C(0);
        } else if constexpr (std::is_same_v<C, float>) {
          if (out_bf16 != nullptr) {
            // Every register of a bfloat16 program holds a bfloat16 value: its upper half is it.
            const float* last = regs.back();
#pragma omp simd
            for (int64_t i = 0; i < n; ++i)
              out_bf16[pos + i].bits =
                  static_cast<uint16_t>(std::bit_cast<uint32_t>(last[i]) >> 16);
          }
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

// Calls fn.template operator()<C>() with the type the program's registers hold: float for a
// bfloat16 program, else its compute dtype's.
template <typename Fn>
void visit_registers(const KernelContext& c, Fn&& fn) {
  const DType compute = program_of(c).compute_dtype;
  if (compute == DType::bf16) {
    fn.template operator()<float>();
    return;
  }
  visit_dtypes<kFusedDTypes>(compute, "fused_elementwise", std::forward<Fn>(fn));
}

void fused_elementwise_kernel(const KernelContext& c) {
  visit_registers(c, [&]<typename C>() { FusedCall<C>(c).run(c); });
}

std::unique_ptr<PreparedKernel> prepare_fused_elementwise(const KernelContext& c) {
  std::unique_ptr<PreparedKernel> prepared;
  visit_registers(
      c, [&]<typename C>() { prepared = std::make_unique<PreparedCall<FusedCall<C>>>(c); });
  return prepared;
}

}  // namespace

void register_fused_kernels(OpTable& t) {
  t.set_kernel(OpId::fused_elementwise, DeviceType::cpu, fused_elementwise_kernel);
  t.set_prepare(OpId::fused_elementwise, DeviceType::cpu, prepare_fused_elementwise);
}

}  // namespace kiln::cpu
