// Einsum equations ("bhqd,bhkd->bhqk", implicit "ij,jk", "...ij->...ji"):
// parsed once into per-dim labels, for the Einsum shape rule and the Einsum
// lowering alike.
#ifndef DLSIM_SRC_MODEL_EINSUM_EQUATION_H_
#define DLSIM_SRC_MODEL_EINSUM_EQUATION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

// A dimension label: a letter's character code, or for the i-th dim of the
// ellipsis counted from the right, kEinsumEllipsisLabel + i. Ellipsis dims
// are aligned from the right, as numpy broadcasting aligns them.
using EinsumLabel = int;
constexpr EinsumLabel kEinsumEllipsisLabel = 256;

struct EinsumEquation {
  // One label per dim of each operand, in dim order (a repeated label is a
  // diagonal).
  std::vector<std::vector<EinsumLabel>> operands;
  // One label per output dim. An implicit output is the ellipsis dims, then
  // the letters that occur once in the operands, in ASCII order.
  std::vector<EinsumLabel> output;
  // Every operand label's size; a dim of 1 broadcasts against a larger one.
  std::map<EinsumLabel, int64_t> sizes;
};

// Parses `equation` for a node whose inputs have `operand_shapes`. Spaces
// are ignored. kInvalidArgument, naming what is wrong, for: a bad character
// or two ellipses in a term, an operand count other than the inputs', an
// operand whose rank does not match its term, a label (or ellipsis) whose
// sizes differ and do not broadcast, an output label in no operand.
Result<EinsumEquation> ParseEinsumEquation(const std::string& equation,
                                           const std::vector<Shape>& operand_shapes);

// The output's dims: the size of each output label.
Shape EinsumOutputShape(const EinsumEquation& equation);

}  // namespace dlsim

#endif  // DLSIM_SRC_MODEL_EINSUM_EQUATION_H_
