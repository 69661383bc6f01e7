// The CUDA fused kernel's host side, which needs no GPU: how inputs are addressed, the generated
// source, its compilation with NVRTC and the disk cache of the compiled code. The kernel's
// values against the CPU kernel's are in the parity table (parity_table.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/framework/backends/cuda/fused_layout.h"
#include "kiln/framework/backends/cuda/fused_source.h"
#include "kiln/framework/backends/cuda/gpu_code_cache.h"
#include "kiln/framework/backends/cuda/nvrtc_compiler.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/ops/elementwise_functor_list.h"
#include "tests/test_support/expect_error.h"

namespace kiln::cuda {
namespace {

namespace fs = std::filesystem;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using Instruction = FusedProgram::Instruction;

FusedProgram program(DType compute, int num_inputs, std::vector<Instruction> instructions) {
  FusedProgram p;
  p.num_inputs = num_inputs;
  p.compute_dtype = compute;
  p.instructions = std::move(instructions);
  return p;
}

FusedSignature signature(const std::vector<Shape>& inputs, const std::vector<DType>& dtypes,
                         const Shape& out, DType out_dtype) {
  const FusedLayout layout = fused_layout(inputs, out);
  return {dtypes, layout.access, static_cast<int>(layout.dims.size()), out_dtype};
}

// relu(x * w + bias) over [4, 3] with a bias row, as the fusion pass writes it.
CudaSource bias_relu_source(OpId activation = OpId::relu) {
  const FusedProgram p = program(
      DType::f32, 3, {{OpId::mul, {}, {0, 1}}, {OpId::add, {}, {3, 2}}, {activation, {}, {4}}});
  return fused_kernel_source(
      p,
      signature({{4, 3}, {4, 3}, {3}}, {DType::f32, DType::f32, DType::f32}, {4, 3}, DType::f32));
}

bool is_elf(const std::string& bytes) {
  return bytes.starts_with("\177ELF");
}

// ---- how inputs are addressed ----

TEST(FusedLayout, EachInputIsReadAsItsShapeAllows) {
  const FusedLayout layout = fused_layout({{4, 3}, {3}, {4, 1}, {}, {1, 1}}, {4, 3});
  EXPECT_THAT(layout.access,
              ElementsAre(InputAccess::contiguous, InputAccess::strided, InputAccess::strided,
                          InputAccess::scalar, InputAccess::scalar));
  EXPECT_THAT(layout.dims, ElementsAre(4, 3));
  EXPECT_THAT(layout.strides, ElementsAre(ElementsAre(0, 1), ElementsAre(1, 0)));
}

TEST(FusedLayout, MergesDimsEveryStridedInputWalksContiguously) {
  // A [4, 5] bias under [2, 3, 4, 5]: broadcast across the first two dims, contiguous across the
  // last two, so two dims remain.
  const FusedLayout bias = fused_layout({{4, 5}}, {2, 3, 4, 5});
  EXPECT_THAT(bias.dims, ElementsAre(6, 20));
  EXPECT_THAT(bias.strides, ElementsAre(ElementsAre(0, 1)));
  // Size-1 dims of the output are dropped; a column keeps its dims apart.
  const FusedLayout column = fused_layout({{2, 1, 5}}, {1, 2, 3, 5});
  EXPECT_THAT(column.dims, ElementsAre(2, 3, 5));
  EXPECT_THAT(column.strides, ElementsAre(ElementsAre(5, 0, 1)));
}

TEST(FusedLayout, NoStridedInputNoIndex) {
  const FusedLayout layout = fused_layout({{4, 3}, {}, {1, 4, 3}}, {4, 3});
  EXPECT_THAT(layout.access,
              ElementsAre(InputAccess::contiguous, InputAccess::scalar, InputAccess::contiguous));
  EXPECT_THAT(layout.dims, IsEmpty());
  EXPECT_THAT(layout.strides, IsEmpty());
}

// ---- the generated source ----

TEST(FusedSource, CompilesToCubinForSm90) {
  const GpuCode code = nvrtc_compile(bias_relu_source(), "sm_90");
  EXPECT_EQ(code.target, "sm_90");
  EXPECT_TRUE(is_elf(code.bytes));
  EXPECT_THAT(code.bytes, HasSubstr(kFusedKernelName));  // the ELF symbol
}

Attrs attrs_of(OpId op) {
  if (op == OpId::leaky_relu || op == OpId::elu) return {{"alpha", 0.2}};
  if (op == OpId::gelu) return {{"approximate", true}};
  return {};
}

// Every op a program may hold, summed into one output, compiles in both compute types: the
// shared functors' header and its stand-ins give NVRTC all that the functors use.
TEST(FusedSource, EveryElementwiseOpCompilesInBothComputeTypes) {
#define KILN_OP_ID(op, F) OpId::op,
  const std::vector<OpId> unary{KILN_UNARY_FUNCTORS(KILN_OP_ID)};
  const std::vector<OpId> binary{KILN_BINARY_FUNCTORS(KILN_OP_ID)};
#undef KILN_OP_ID
  for (const DType compute : {DType::f32, DType::f64}) {
    SCOPED_TRACE(dtype_name(compute));
    // x0 of the output's shape, x1 a row, x2 a scalar, x3 a bool mask.
    std::vector<Instruction> ins;
    for (const OpId op : unary) ins.push_back({op, attrs_of(op), {0}});
    for (const OpId op : binary) ins.push_back({op, {}, {0, 1}});
    ins.push_back({OpId::where, {}, {3, 0, 2}});
    ins.push_back({OpId::cast, {{"dtype", DType::boolean}}, {1}});
    ins.push_back({OpId::cast, {{"dtype", compute}}, {2}});
    const int results = static_cast<int>(ins.size());
    int sum = 4;  // t0
    for (int k = 1; k < results; ++k) {
      ins.push_back({OpId::add, {}, {sum, 4 + k}});
      sum = 4 + static_cast<int>(ins.size()) - 1;
    }
    const FusedProgram p = program(compute, 4, std::move(ins));
    const DType out = compute == DType::f32 ? DType::f32 : DType::boolean;
    const CudaSource source =
        fused_kernel_source(p, signature({{8, 5}, {5}, {}, {8, 5}},
                                         {compute, compute, compute, DType::boolean}, {8, 5}, out));
    EXPECT_THAT(source.text, HasSubstr("kiln::fn::Gelu{true}(x0)"));
    EXPECT_TRUE(is_elf(nvrtc_compile(source, "sm_90").bytes));
  }
}

// mul then add stay two roundings, as in the unfused kernels and on the CPU: no FMA.
TEST(FusedSource, ChainsRoundAfterEveryOp) {
  const GpuCode ptx = nvrtc_compile(bias_relu_source(), nvrtc_target(10000));
  EXPECT_THAT(ptx.bytes, HasSubstr("mul.rn.f32"));
  EXPECT_THAT(ptx.bytes, HasSubstr("add.rn.f32"));
  EXPECT_THAT(ptx.bytes, Not(HasSubstr("fma")));
}

TEST(FusedSource, AttributesAreWrittenExactly) {
  const double inf = std::numeric_limits<double>::infinity();
  const FusedProgram p = program(DType::f32, 1,
                                 {{OpId::leaky_relu, {{"alpha", 0.2}}, {0}},
                                  {OpId::elu, {{"alpha", -1.5}}, {1}},
                                  {OpId::gelu, {{"approximate", false}}, {2}},
                                  {OpId::leaky_relu, {{"alpha", inf}}, {3}}});
  const CudaSource source = fused_kernel_source(p, signature({{7}}, {DType::f32}, {7}, DType::f32));
  EXPECT_THAT(source.text, HasSubstr("kiln::fn::LeakyRelu{0x1.999999999999ap-3}(x0)"));
  EXPECT_THAT(source.text, HasSubstr("kiln::fn::Elu{-0x1.8p+0}(t0)"));
  EXPECT_THAT(source.text, HasSubstr("kiln::fn::Gelu{false}(t1)"));
  // No literal spells infinity: its bits do.
  EXPECT_THAT(source.text,
              HasSubstr("kiln::fn::LeakyRelu{__longlong_as_double(9218868437227405312LL)}(t2)"));
  EXPECT_TRUE(is_elf(nvrtc_compile(source, "sm_90").bytes));
}

TEST(FusedSource, InputsAreReadAsTheirAccessSays) {
  // greater(x0 + x1 + x2, x3) over [4, 3]: x1 a column, x2 a scalar, x3 a bool mask.
  const FusedProgram p =
      program(DType::f32, 4,
              {{OpId::add, {}, {0, 1}}, {OpId::add, {}, {4, 2}}, {OpId::greater, {}, {5, 3}}});
  const std::string text =
      fused_kernel_source(p, signature({{4, 3}, {4, 1}, {}, {4, 3}},
                                       {DType::f32, DType::f32, DType::f32, DType::boolean}, {4, 3},
                                       DType::boolean))
          .text;
  EXPECT_THAT(text, HasSubstr("unsigned char* const out"));
  EXPECT_THAT(text, HasSubstr("const __grid_constant__ KilnIndex<2, 1> index"));
  EXPECT_THAT(text, HasSubstr("const float x0 = in0[i];"));
  EXPECT_THAT(text, HasSubstr("const float x1 = in1[off[0]];"));
  EXPECT_THAT(text, HasSubstr("const float x2 = in2[0];"));
  EXPECT_THAT(text, HasSubstr("const float x3 = static_cast<float>(in3[i] != 0);"));
  EXPECT_THAT(text, HasSubstr("const float t2 = static_cast<float>(kiln::fn::Greater{}(t1, x3));"));
  EXPECT_THAT(text, HasSubstr("out[i] = t2 != float(0);"));
}

TEST(FusedSource, RefusesWhatTheCpuKernelRefuses) {
  const FusedSignature one_f32 = signature({{3}}, {DType::f32}, {3}, DType::f32);
  kiln::testing::expect_error(
      [&] {
        fused_kernel_source(program(DType::f16, 1, {{OpId::relu, {}, {0}}}), one_f32);
      },
      "programs compute in float32 or float64, not float16");
  kiln::testing::expect_error(
      [&] {
        fused_kernel_source(program(DType::f32, 1, {{OpId::relu, {}, {0}}}),
                            signature({{3}}, {DType::i32}, {3}, DType::f32));
      },
      "an input of dtype int32 in a program computing in float32");
  kiln::testing::expect_error(
      [&] {
        fused_kernel_source(program(DType::f32, 1, {{OpId::matmul, {}, {0, 0}}}), one_f32);
      },
      "matmul is not an elementwise op");
  kiln::testing::expect_error(
      [&] {
        fused_kernel_source(program(DType::f32, 1, {{OpId::relu, {}, {1}}}), one_f32);
      },
      "reads register 1, which no input or earlier instruction writes");
  kiln::testing::expect_error(
      [&] {
        fused_kernel_source(program(DType::f32, 1, {{OpId::add, {}, {0}}}), one_f32);
      },
      "add takes 2 operands, instruction 0 gives it 1");
}

// ---- NVRTC ----

TEST(NvrtcCompiler, FailureCarriesNvrtcsLogAndTheSource) {
  const CudaSource broken{
      "broken.cu",
      "extern \"C\" __global__ void broken(float* out) { out[0] = undefined_name; }",
      {}};
  const std::string error = kiln::testing::error_of([&] { nvrtc_compile(broken, "sm_90"); });
  EXPECT_THAT(error, HasSubstr("NVRTC could not compile broken.cu for sm_90"));
  EXPECT_THAT(error, HasSubstr("broken.cu(1): error: identifier \"undefined_name\" is undefined"));
  EXPECT_THAT(error, HasSubstr("   1  extern \"C\" __global__ void broken"));
}

TEST(NvrtcCompiler, TargetsTheGpuOrPtxForTheNewestArchitectureBelowIt) {
  EXPECT_EQ(nvrtc_target(90), "sm_90");
  const std::string future = nvrtc_target(10000);
  EXPECT_THAT(future, StartsWith("compute_"));
  kiln::testing::expect_error([] { nvrtc_target(20); }, "not for this sm_20 one");

  const GpuCode ptx = nvrtc_compile(bias_relu_source(), future);
  EXPECT_THAT(ptx.bytes, HasSubstr(".entry kiln_fused_elementwise("));
  ASSERT_FALSE(ptx.bytes.empty());
  EXPECT_EQ(ptx.bytes.back(), '\0');  // the driver reads PTX as a C string
}

// ---- the disk cache ----

// An empty directory of its own, removed with its contents at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("kiln_gpu_code_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_bytes(const fs::path& file) {
  std::ostringstream bytes;
  bytes << std::ifstream(file, std::ios::binary).rdbuf();
  return std::move(bytes).str();
}

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(GpuCodeCache, AnotherProcessReadsWhatTheFirstCompiled) {
  const TempDir dir("round_trip");
  const CudaSource source = bias_relu_source();
  GpuCodeCache first(dir.path());
  const GpuCode compiled = first.get(source, "sm_90");
  EXPECT_EQ(first.compiles(), 1);
  EXPECT_EQ(first.hits(), 0);
  EXPECT_TRUE(fs::is_regular_file(first.file_for(source, "sm_90")));
  EXPECT_EQ(first.file_for(source, "sm_90").parent_path(), dir.path());

  GpuCodeCache second(dir.path());  // as a later process sees the directory
  const GpuCode cached = second.get(source, "sm_90");
  EXPECT_EQ(second.hits(), 1);
  EXPECT_EQ(second.compiles(), 0);
  EXPECT_EQ(cached.target, "sm_90");
  EXPECT_EQ(cached.bytes, compiled.bytes);
}

TEST(GpuCodeCache, TruncatedOrCorruptFilesAreCompiledAgainAndReplaced) {
  const TempDir dir("corrupt");
  const CudaSource source = bias_relu_source();
  GpuCodeCache cache(dir.path());
  const GpuCode compiled = cache.get(source, "sm_90");
  const fs::path file = cache.file_for(source, "sm_90");
  const std::string intact = read_bytes(file);
  std::string flipped = intact;
  flipped.back() = static_cast<char>(flipped.back() ^ 1);
  for (const std::string& damaged : {intact.substr(0, intact.size() / 2), flipped,
                                     std::string("not a cache file"), std::string()}) {
    write_bytes(file, damaged);
    GpuCodeCache reader(dir.path());
    EXPECT_EQ(reader.get(source, "sm_90").bytes, compiled.bytes);
    EXPECT_EQ(reader.compiles(), 1);
    EXPECT_EQ(reader.hits(), 0);
    EXPECT_EQ(read_bytes(file), intact);
  }
}

TEST(GpuCodeCache, AFileHoldingAnotherRequestIsNotUsed) {
  const TempDir dir("other_request");
  const CudaSource relu = bias_relu_source(OpId::relu);
  const CudaSource tanh = bias_relu_source(OpId::tanh);
  GpuCodeCache cache(dir.path());
  const GpuCode relu_code = cache.get(relu, "sm_90");
  // As if the two requests' names collided.
  fs::copy_file(cache.file_for(relu, "sm_90"), cache.file_for(tanh, "sm_90"));
  GpuCodeCache reader(dir.path());
  const GpuCode tanh_code = reader.get(tanh, "sm_90");
  EXPECT_EQ(reader.compiles(), 1);
  EXPECT_EQ(reader.hits(), 0);
  EXPECT_NE(tanh_code.bytes, relu_code.bytes);
}

TEST(GpuCodeCache, AnUnwritableDirectoryCostsAWarningNotAnError) {
  std::vector<std::string> warnings;
  const LogSink previous = set_log_sink([&](LogLevel level, std::string_view message) {
    if (level == LogLevel::warning) warnings.emplace_back(message);
  });
  GpuCodeCache cache("/dev/null/kiln");
  EXPECT_TRUE(is_elf(cache.get(bias_relu_source(), "sm_90").bytes));
  EXPECT_TRUE(is_elf(cache.get(bias_relu_source(OpId::tanh), "sm_90").bytes));
  set_log_sink(previous);
  EXPECT_EQ(cache.compiles(), 2);
  ASSERT_EQ(warnings.size(), 1u);  // once per cache
  EXPECT_THAT(warnings[0], HasSubstr("cannot keep compiled CUDA kernels in /dev/null/kiln"));
}

// Sets (or, with nullptr, unsets) an environment variable for its lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_ ? old_->c_str() : nullptr); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const char* value) {
    if (value != nullptr)
      setenv(name_, value, 1);
    else
      unsetenv(name_);
  }

  const char* name_;
  std::optional<std::string> old_;
};

TEST(GpuCodeCache, DirectoryComesFromTheEnvironment) {
  {
    const ScopedEnv kiln("KILN_CUDA_CACHE_DIR", "/scratch/kernels");
    const ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(default_gpu_code_cache_dir(), fs::path("/scratch/kernels"));
  }
  const ScopedEnv kiln("KILN_CUDA_CACHE_DIR", nullptr);
  const ScopedEnv home("HOME", "/home/someone");
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(default_gpu_code_cache_dir(), fs::path("/xdg/kiln/cuda"));
  }
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "relative/cache");  // ignored, as the XDG spec says
    EXPECT_EQ(default_gpu_code_cache_dir(), fs::path("/home/someone/.cache/kiln/cuda"));
  }
  const ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  const ScopedEnv no_home("HOME", nullptr);
  EXPECT_EQ(default_gpu_code_cache_dir(), fs::path());
}

}  // namespace
}  // namespace kiln::cuda
