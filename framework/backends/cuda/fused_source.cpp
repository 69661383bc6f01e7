#include "kiln/framework/backends/cuda/fused_source.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "kiln/framework/backends/cuda/functor_headers.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/elementwise_dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::cuda {
namespace {

// StridedIndex::offsets (strided_index.cuh) as device code that needs no kiln header.
constexpr std::string_view kIndexStruct = R"(
// The offsets of the S strided inputs at output element i: R dims, each input's strides along
// them (0 where it broadcasts).
template <int R, int S>
struct KilnIndex {
  long long dims[R];
  long long strides[S][R];

  __device__ void offsets(long long i, long long (&off)[S]) const {
    for (int k = 0; k < S; ++k) off[k] = 0;
    for (int d = R - 1; d > 0; --d) {
      const long long q = i / dims[d];
      for (int k = 0; k < S; ++k) off[k] += (i - q * dims[d]) * strides[k][d];
      i = q;
    }
    for (int k = 0; k < S; ++k) off[k] += i * strides[k][0];
  }
};
)";

// The kernel's C++ type for data of dtype `dtype` (one the signature admits): bool is stored as
// one byte.
std::string_view data_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "float";
    case DType::f64:
      return "double";
    default:
      return "unsigned char";
  }
}

// `value` exactly, as device code: a hexadecimal literal, or its bits where no literal spells it.
std::string double_literal(double value) {
  if (!std::isfinite(value))
    return detail::concat("__longlong_as_double(", std::bit_cast<int64_t>(value), "LL)");
  std::array<char, 32> digits{};
  const char* end = std::to_chars(digits.data(), digits.data() + digits.size(), std::fabs(value),
                                  std::chars_format::hex)
                        .ptr;
  return detail::concat(std::signbit(value) ? "-" : "", "0x",
                        std::string_view(digits.data(), static_cast<size_t>(end - digits.data())));
}

// The fields of the functors that carry an op's attributes, as an initializer.
std::string fields_of(const fn::LeakyRelu& f) {
  return double_literal(f.alpha);
}
std::string fields_of(const fn::Elu& f) {
  return double_literal(f.alpha);
}
std::string fields_of(const fn::Gelu& f) {
  return f.approximate ? "true" : "false";
}

// A device expression constructing `f`. A functor with fields needs a fields_of overload: without
// one this does not compile, where emitting F{} would silently drop the op's attributes.
template <typename F>
std::string construction(std::string_view name, const F& f) {
  if constexpr (std::is_empty_v<F>)
    return detail::concat("kiln::fn::", name, "{}");
  else
    return detail::concat("kiln::fn::", name, "{", fields_of(f), "}");
}

struct Functor {
  std::string construction;  // empty: the op has no functor
  size_t arity = 0;
};

// The op's functor built from its attrs, as the CPU kernel builds it (fn::make_functor).
Functor functor_of(const FusedProgram::Instruction& ins) {
  switch (ins.op) {
#define KILN_FUNCTOR_CASE(op, F, arity) \
  case OpId::op:                        \
    return {construction(#F, fn::make_functor<fn::F>(ins.attrs)), arity};
#define KILN_UNARY_CASE(op, F) KILN_FUNCTOR_CASE(op, F, 1)
#define KILN_BINARY_CASE(op, F) KILN_FUNCTOR_CASE(op, F, 2)
    KILN_UNARY_FUNCTORS(KILN_UNARY_CASE)
    KILN_BINARY_FUNCTORS(KILN_BINARY_CASE)
#undef KILN_BINARY_CASE
#undef KILN_UNARY_CASE
#undef KILN_FUNCTOR_CASE
    default:
      return {};
  }
}

// Register r as describe() names it: x<k> the k-th input, t<k> the k-th instruction's result.
std::string register_name(const FusedProgram& program, int r) {
  return r < program.num_inputs ? detail::concat('x', r)
                                : detail::concat('t', r - program.num_inputs);
}

// Instruction k's value in the compute type `c`. Bool is held as 0 and 1, so where and casts
// test against 0 as the CPU's block loops do.
std::string instruction_value(const FusedProgram& program, size_t k, std::string_view c) {
  const FusedProgram::Instruction& ins = program.instructions[k];
  const std::string_view name = op_def(ins.op).name;
  const int written = program.num_inputs + static_cast<int>(k);
  std::vector<std::string> args;
  for (const int r : ins.operands) {
    KILN_CHECK(r >= 0 && r < written, "fused_elementwise: instruction ", k, " (", name,
               ") reads register ", r, ", which no input or earlier instruction writes");
    args.push_back(register_name(program, r));
  }
  auto expect_operands = [&](size_t n) {
    KILN_CHECK(args.size() == n, "fused_elementwise: ", name, " takes ", n,
               " operands, instruction ", k, " gives it ", args.size());
  };
  if (ins.op == OpId::where) {
    expect_operands(3);
    return detail::concat(args[0], " != ", c, "(0) ? ", args[1], " : ", args[2]);
  }
  if (ins.op == OpId::cast) {
    expect_operands(1);
    if (ins.attrs.get(attr::dtype) == DType::boolean)
      return detail::concat(args[0], " != ", c, "(0) ? ", c, "(1) : ", c, "(0)");
    return args[0];
  }
  const Functor functor = functor_of(ins);
  KILN_CHECK(!functor.construction.empty(), "fused_elementwise: ", name,
             " is not an elementwise op");
  expect_operands(functor.arity);
  std::string call = functor.construction + "(" + args[0];
  for (size_t i = 1; i < args.size(); ++i) call += ", " + args[i];
  // A comparison's bool becomes 1 or 0.
  return detail::concat("static_cast<", c, ">(", call, "))");
}

void check_signature(const FusedProgram& program, const FusedSignature& signature) {
  const DType compute = program.compute_dtype;
  KILN_CHECK(compute == DType::f32 || compute == DType::f64,
             "fused_elementwise: programs compute in float32 or float64, not ",
             dtype_name(compute));
  KILN_CHECK(!program.instructions.empty(), "fused_elementwise: an empty program");
  const auto num_inputs = static_cast<size_t>(program.num_inputs);
  KILN_CHECK(signature.input_dtypes.size() == num_inputs && signature.access.size() == num_inputs,
             "fused_elementwise: the program reads ", num_inputs, " inputs, the node has ",
             signature.input_dtypes.size());
  for (const DType dtype : signature.input_dtypes)
    KILN_CHECK(dtype == compute || dtype == DType::boolean, "fused_elementwise: an input of dtype ",
               dtype_name(dtype), " in a program computing in ", dtype_name(compute));
  KILN_CHECK(signature.output_dtype == compute || signature.output_dtype == DType::boolean,
             "fused_elementwise: an output of dtype ", dtype_name(signature.output_dtype),
             " from a program computing in ", dtype_name(compute));
  const bool strided =
      std::count(signature.access.begin(), signature.access.end(), InputAccess::strided) > 0;
  KILN_CHECK(strided == (signature.index_rank > 0), "fused_elementwise: an index of rank ",
             signature.index_rank, (strided ? " for" : " without"), " strided inputs");
}

}  // namespace

CudaSource fused_kernel_source(const FusedProgram& program, const FusedSignature& signature) {
  check_signature(program, signature);
  const std::string_view c = data_type(program.compute_dtype);
  const auto num_strided =
      std::count(signature.access.begin(), signature.access.end(), InputAccess::strided);
  std::ostringstream src;
  src << "// fused_elementwise " << program.describe() << "\n"
      << "#include \"kiln/framework/ops/elementwise_functors.h\"\n"
      << kIndexStruct << "\n"
      << "extern \"C\" __global__ void " << kFusedKernelName << "(\n"
      << "    const long long n, " << data_type(signature.output_dtype) << "* const out";
  for (size_t k = 0; k < signature.input_dtypes.size(); ++k)
    src << ",\n    const " << data_type(signature.input_dtypes[k]) << "* const in" << k;
  if (num_strided > 0)
    src << ",\n    const __grid_constant__ KilnIndex<" << signature.index_rank << ", "
        << num_strided << "> index";
  src << ") {\n"
      << "  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;\n"
      << "  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;"
      << " i < n; i += step) {\n";
  if (num_strided > 0)
    src << "    long long off[" << num_strided << "];\n"
        << "    index.offsets(i, off);\n";
  int next_strided = 0;
  for (size_t k = 0; k < signature.access.size(); ++k) {
    std::string element;
    switch (signature.access[k]) {
      case InputAccess::contiguous:
        element = detail::concat("in", k, "[i]");
        break;
      case InputAccess::scalar:
        element = detail::concat("in", k, "[0]");
        break;
      case InputAccess::strided:
        element = detail::concat("in", k, "[off[", next_strided++, "]]");
        break;
    }
    // A bool input becomes 0 or 1, as the CPU kernel converts it.
    if (signature.input_dtypes[k] == DType::boolean)
      element = detail::concat("static_cast<", c, ">(", element, " != 0)");
    src << "    const " << c << " x" << k << " = " << element << ";\n";
  }
  for (size_t k = 0; k < program.instructions.size(); ++k)
    src << "    const " << c << " t" << k << " = " << instruction_value(program, k, c) << ";\n";
  const std::string last = detail::concat('t', program.instructions.size() - 1);
  src << "    out[i] = "
      << (signature.output_dtype == DType::boolean ? detail::concat(last, " != ", c, "(0)") : last)
      << ";\n"
      << "  }\n"
      << "}\n";
  // No contraction of a multiply and an add into one FMA: the program rounds after every op, as
  // the unfused kernels (one op each) and the CPU kernel (compiled without contraction) do.
  return {"fused_elementwise.cu", src.str(), fused_kernel_headers(), {"--fmad=false"}};
}

}  // namespace kiln::cuda
