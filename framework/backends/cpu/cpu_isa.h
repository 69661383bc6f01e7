#pragma once
// The x86 instruction set levels kiln's own CPU loops are compiled for, and the one they run
// with: the best the processor has (cpuid), lowered by the environment variable KILN_CPU_ISA
// (sse2, avx2 or avx512) or by set_cpu_isa, e.g. to test every level on one machine. oneDNN
// picks its own. A plan keeps the loops it was made with.
#include <string>

namespace kiln::cpu {

enum class CpuIsa { sse2, avx2, avx512 };  // x86-64, x86-64-v3, x86-64-v4

CpuIsa detected_cpu_isa();
CpuIsa cpu_isa();
// Throws when the processor lacks `isa`.
void set_cpu_isa(CpuIsa isa);
std::string cpu_isa_name(CpuIsa isa);

}  // namespace kiln::cpu
