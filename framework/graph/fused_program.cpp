#include "kiln/framework/graph/fused_program.h"

#include <sstream>

#include "kiln/framework/ops/op_def.h"

namespace kiln {

std::string FusedProgram::describe() const {
  std::ostringstream out;
  auto reg = [&](int r) -> std::ostream& {
    return r < num_inputs ? out << 'x' << r : out << 't' << r - num_inputs;
  };
  out << '<' << dtype_name(compute_dtype) << ':';
  for (size_t k = 0; k < instructions.size(); ++k) {
    const Instruction& ins = instructions[k];
    out << (k ? "; " : " ");
    reg(num_inputs + static_cast<int>(k)) << " = " << op_def(ins.op).name;
    if (!ins.attrs.empty()) out << '[' << ins.attrs.to_string() << ']';
    out << '(';
    for (size_t i = 0; i < ins.operands.size(); ++i) {
      if (i) out << ", ";
      reg(ins.operands[i]);
    }
    out << ')';
  }
  out << '>';
  return out.str();
}

}  // namespace kiln
