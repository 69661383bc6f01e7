# Compiler flags shared by every kiln target (applied through kiln_set_target_options).
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

set(KILN_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Wunused -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
    # Options structs are meant to be filled with designated initializers naming only the fields
    # that differ from their defaults (`Adam({.learning_rate = 1e-3})`); GCC 12 would flag each.
    -Wno-missing-field-initializers)
# clang reports `omp simd` loops whose body calls into libm (exp, tanh, ...) as "not vectorized";
# the pragma is a hint, and those loops stay scalar by design.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  list(APPEND KILN_CXX_WARNINGS -Wno-pass-failed)
endif()
if(KILN_WARNINGS_AS_ERRORS)
  list(APPEND KILN_CXX_WARNINGS -Werror)
endif()

if(KILN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# Fuzzing: every library instrumented for libFuzzer's coverage and checked by AddressSanitizer;
# the fuzz targets themselves link libFuzzer's main (tests/fuzz).
if(KILN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KILN_FUZZ needs clang (libFuzzer): configure with CXX=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address)
endif()

function(kiln_set_target_options target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${KILN_CXX_WARNINGS}>)
endfunction()
