// The fused kernel's block loops at the avx512 level (compile options in framework/CMakeLists.txt).
#define KILN_ISA_NS isa_avx512
#include "kiln/framework/backends/cpu/block_loops.inc"
