// The fused kernel's block loops at the sse2 level (compile options in framework/CMakeLists.txt).
#define KILN_ISA_NS isa_sse2
#include "kiln/framework/backends/cpu/block_loops.inc"
