#include "kiln/datasets/pipeline/dataset_node.h"

#include <vector>

namespace kiln::datasets {

Element DatasetNode::stack_at(std::span<const int64_t> indices, std::string_view what) const {
  std::vector<Element> rows;
  rows.reserve(indices.size());
  for (const int64_t i : indices) rows.push_back(element_at(i));
  return stack_rows(rows, what);
}

}  // namespace kiln::datasets
