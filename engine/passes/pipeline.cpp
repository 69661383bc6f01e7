#include "kiln/engine/passes/passes.h"

namespace kiln::engine {

Graph optimize(Graph graph, const PassOptions& options) {
  if (options.simplify) graph = simplify(graph);
  if (options.fold_constants) graph = fold_constants(graph);
  if (options.common_subexpressions) graph = eliminate_common_subexpressions(graph);
  // After CSE has merged the forward pools it looks for; before fusion hides the masks.
  if (options.pooled_gradient_masks) graph = mask_pooled_gradients(graph);
  if (options.pooled_gradient_sums) graph = sum_pooled_gradients(graph);
  // After the two passes above, which look for max_pool2d_grad.
  if (options.pool_argmax) graph = keep_pool_argmax(graph);
  if (options.record_gradient_slices) graph = fold_record_gradient_slices(graph);
  if (options.project_before_gather) graph = project_before_gather(graph);
  // After project_before_gather, which looks for a matmul's bias add (and moves it onto the
  // table, where this pass then folds it).
  if (options.bias_activation) graph = fuse_bias_activation(graph);
  // After the passes that simplify what it would fuse.
  if (options.fusion) graph = fuse_elementwise(graph);
  // Last: the passes above leave the nodes they bypass for it.
  if (options.dead_code) graph = eliminate_dead_code(graph);
  // After every pass that adds or removes nodes: it only reorders.
  if (options.early_collectives) graph = issue_collectives_early(graph);
  return graph;
}

}  // namespace kiln::engine
