#include "kiln/framework/ops/op_def.h"

#include "kiln/framework/core/error.h"

namespace kiln {
namespace {

OpTable build_table() {
  OpTable table;
  define_elementwise_ops(table);
  define_unary_ops(table);
  define_reduction_ops(table);
  define_shape_ops(table);
  define_index_ops(table);
  define_linalg_ops(table);
  define_nn_ops(table);
  define_recurrent_ops(table);
  define_graph_ops(table);
  define_random_ops(table);
  define_collective_ops(table);
  define_optimizer_ops(table);
  register_cpu_kernels(table);
  register_cuda_kernels(table);
  register_collective_kernels(table);
  // Every op of the list must be defined by exactly one family.
#define KILN_CHECK_DEFINED(op)                                                    \
  KILN_CHECK(table[OpId::op].name != nullptr && table[OpId::op].infer != nullptr, \
             "op table: '" #op "' has no definition");
  KILN_OPS(KILN_CHECK_DEFINED)
#undef KILN_CHECK_DEFINED
  return table;
}

}  // namespace

OpTable& op_table_for_testing() {
  static OpTable table = build_table();
  return table;
}

const OpTable& op_table() {
  return op_table_for_testing();
}

std::vector<std::string_view> ops_without_kernel(DeviceType device) {
  std::vector<std::string_view> out;
  for (const OpDef& def : op_table().defs())
    if (def.kernels[static_cast<size_t>(DeviceType::cpu)] != nullptr &&
        def.kernels[static_cast<size_t>(device)] == nullptr)
      out.emplace_back(def.name);
  return out;
}

}  // namespace kiln
