#include "kiln/framework/backends/cpu/cpu_isa.h"

#include <atomic>
#include <cstdlib>

#include "kiln/framework/core/error.h"

namespace kiln::cpu {
namespace {

#if defined(KILN_CPU_X86_ISAS)
CpuIsa probe() {
  __builtin_cpu_init();
  const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return v4 ? CpuIsa::avx512 : v3 ? CpuIsa::avx2 : CpuIsa::sse2;
}
#else
CpuIsa probe() {
  return CpuIsa::sse2;
}  // the portable loops, whatever the processor
#endif

CpuIsa parse(const std::string& name) {
  for (CpuIsa isa : {CpuIsa::sse2, CpuIsa::avx2, CpuIsa::avx512})
    if (name == cpu_isa_name(isa)) return isa;
  throw Error(detail::concat("KILN_CPU_ISA=", name, ": expected sse2, avx2 or avx512"));
}

CpuIsa initial() {
  const char* requested = std::getenv("KILN_CPU_ISA");
  if (requested == nullptr || *requested == '\0') return detected_cpu_isa();
  const CpuIsa isa = parse(requested);
  return isa < detected_cpu_isa() ? isa : detected_cpu_isa();
}

std::atomic<CpuIsa>& current() {
  static std::atomic<CpuIsa> isa{initial()};
  return isa;
}

}  // namespace

CpuIsa detected_cpu_isa() {
  static const CpuIsa isa = probe();
  return isa;
}

CpuIsa cpu_isa() {
  return current().load(std::memory_order_relaxed);
}

void set_cpu_isa(CpuIsa isa) {
  KILN_CHECK(isa <= detected_cpu_isa(), "set_cpu_isa: this processor has ",
             cpu_isa_name(detected_cpu_isa()), ", not ", cpu_isa_name(isa));
  current() = isa;
}

std::string cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::sse2:
      return "sse2";
    case CpuIsa::avx2:
      return "avx2";
    case CpuIsa::avx512:
      return "avx512";
  }
  return "?";
}

}  // namespace kiln::cpu
