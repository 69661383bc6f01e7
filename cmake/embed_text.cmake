# Writes a C++ source defining `std::string_view NAMESPACE::FUNCTION()`, which returns the text of
# INPUT: for code that needs a file's text at run time (NVRTC compiles the elementwise functors
# the CPU and CUDA kernels share from their header's text). Run as
#   cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DNAMESPACE=<ns> -DFUNCTION=<name> -P embed_text.cmake
file(READ "${INPUT}" text)
string(FIND "${text}" ")kiln_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )kiln_embed\"")
endif()
file(WRITE "${OUTPUT}"
     "// Generated from ${INPUT} by cmake/embed_text.cmake.\n"
     "#include <string_view>\n"
     "\n"
     "namespace ${NAMESPACE} {\n"
     "\n"
     "std::string_view ${FUNCTION}() {\n"
     "  return R\"kiln_embed(${text})kiln_embed\";\n"
     "}\n"
     "\n"
     "}  // namespace ${NAMESPACE}\n")
