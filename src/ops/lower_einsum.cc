// Einsum -> the calls torch.einsum makes on CUDA. Operands are contracted
// pairwise, left to right (((A,B),C),...). Before each pair, a label in only
// one of the two that is not kept (in the output or a later operand) is
// summed out of it (a reduction). The pair is then a broadcasting multiply
// when nothing is contracted, else one (batched) GEMM over the labels
// grouped as batch (in both, kept), left-free (only A), right-free (only B)
// and contracted (in both, not kept) — torch's sumproduct_pair, which
// permutes and reshapes each operand to (batch, free, contracted) and so
// copies one whose groups are not contiguous runs of its memory.
#include <algorithm>
#include <set>
#include <utility>

#include "gemm_call.h"
#include "model/einsum_equation.h"
#include "op_registry.h"

namespace dlsim {
namespace {

using Labels = std::vector<EinsumLabel>;
using LabelSet = std::set<EinsumLabel>;

// An operand (input or intermediate result) as its memory holds it: its
// distinct labels, outermost first. Dims of size 1 are dropped: they take no
// memory and views move them freely.
struct Operand {
  Labels labels;
  bool diagonal = false;  // a diagonal view (a repeated label): not reshapeable
};

// One Einsum node being lowered.
struct Einsum {
  const LowerContext& ctx;
  EinsumEquation eq;
  // torch's common dim order: the output labels, then the others by label.
  // A group of labels (batch, free, contracted) is laid out in this order.
  Labels common_order;
  std::vector<KernelCall>* calls;

  int64_t Elems(const Labels& labels) const {
    Shape dims;
    for (EinsumLabel l : labels) dims.push_back(eq.sizes.at(l));
    return NumElements(dims);
  }
  double Bytes(const Labels& labels) const {
    return static_cast<double>(Elems(labels)) * DTypeBytes(ctx.options().dtype);
  }
  // The labels of `common_order` for which `in_group` holds.
  template <typename Pred>
  Labels Group(Pred in_group) const {
    Labels group;
    for (EinsumLabel l : common_order) {
      if (in_group(l)) group.push_back(l);
    }
    return group;
  }
};

Labels CommonOrder(const EinsumEquation& eq) {
  Labels order = eq.output;
  for (const auto& [label, size] : eq.sizes) {
    if (std::find(order.begin(), order.end(), label) == order.end()) order.push_back(label);
  }
  return order;
}

bool Has(const Labels& labels, EinsumLabel l) {
  return std::find(labels.begin(), labels.end(), l) != labels.end();
}

Operand MakeOperand(const Labels& labels, const Shape& dims) {
  Operand op;
  for (size_t k = 0; k < labels.size(); ++k) {
    if (dims[k] == 1) continue;  // size 1, or broadcast against the others
    if (Has(op.labels, labels[k])) {
      op.diagonal = true;
    } else {
      op.labels.push_back(labels[k]);
    }
  }
  return op;
}

// The output labels and those of the operands after operand `i`.
LabelSet KeptAfter(const EinsumEquation& eq, size_t i) {
  LabelSet kept(eq.output.begin(), eq.output.end());
  for (size_t j = i + 1; j < eq.operands.size(); ++j) {
    kept.insert(eq.operands[j].begin(), eq.operands[j].end());
  }
  return kept;
}

// Sums the labels of `op` outside `keep` out of it: one reduction kernel
// (ReduceSum's call); nothing when none are.
void SumOut(const Einsum& e, const LabelSet& keep, Operand* op) {
  Labels left;
  for (EinsumLabel l : op->labels) {
    if (keep.count(l) != 0) left.push_back(l);
  }
  if (left.size() == op->labels.size()) return;
  const int64_t in_elems = e.Elems(op->labels), out_elems = e.Elems(left);
  e.calls->push_back(
      ReductionCall(e.ctx, "sum", in_elems, out_elems, e.Bytes(op->labels), e.Bytes(left)));
  if (e.ctx.options().training)
    e.calls->push_back(ElementwiseBwdCall(e.ctx, "reduce_sum", in_elems, 1));
  *op = Operand{left, false};
}

// Nothing contracted: torch's broadcasting mul.
Operand Multiply(const Einsum& e, const Operand& a, const Operand& b) {
  Operand out = a;
  for (EinsumLabel l : b.labels) {
    if (!Has(out.labels, l)) out.labels.push_back(l);
  }
  out.diagonal = false;
  const int64_t elems = e.Elems(out.labels);
  const int arity = std::max<int>(1, (e.Elems(a.labels) == elems) + (e.Elems(b.labels) == elems));
  e.calls->push_back(ElementwiseCall(
      e.ctx, "mul", elems, arity, e.Bytes(a.labels) + e.Bytes(b.labels), e.Bytes(out.labels)));
  if (e.ctx.options().training)
    e.calls->push_back(ElementwiseBwdCall(e.ctx, "mul", elems, arity + 1));
  return out;
}

// True when `op` holds each of `groups` as one run, in the group's order.
bool GroupsContiguous(const Operand& op, const std::vector<Labels>& groups) {
  if (op.diagonal) return false;
  for (const Labels& g : groups) {
    if (g.empty()) continue;
    const size_t at = std::find(op.labels.begin(), op.labels.end(), g[0]) - op.labels.begin();
    if (at + g.size() > op.labels.size()) return false;
    if (!std::equal(g.begin(), g.end(), op.labels.begin() + at)) return false;
  }
  return true;
}

// Copies `op` into the layout `groups` (concatenated) unless its memory
// already holds each group as one run (a reshape that is a view). The call
// is shaped as LowerCopy shapes a Transpose.
void MakeContiguous(const Einsum& e, const std::vector<Labels>& groups, Operand* op) {
  if (GroupsContiguous(*op, groups)) return;
  Labels target;
  for (const Labels& g : groups) target.insert(target.end(), g.begin(), g.end());
  Labels in_place;  // the trailing run the copy leaves where it is
  for (size_t j = 1; j <= target.size() && j <= op->labels.size(); ++j) {
    if (target[target.size() - j] != op->labels[op->labels.size() - j]) break;
    in_place.push_back(target[target.size() - j]);
  }
  KernelCall call = e.ctx.NewCall(KernelKind::kCopy, "copy_kernel", MathMode::kFp32);
  call.AddParam("op", "transpose");
  call.AddParam("elems", e.Elems(target));
  call.AddParam("inner", op->diagonal ? 1 : e.Elems(in_place));
  call.bytes_read = e.Bytes(target);
  call.bytes_written = e.Bytes(target);
  e.calls->push_back(std::move(call));
  *op = Operand{target, false};
}

// True when `first`'s labels come before `second`'s in `op`'s memory.
bool Before(const Operand& op, const Labels& first, const Labels& second) {
  if (first.empty() || second.empty()) return false;
  auto pos = [&](EinsumLabel l) { return std::find(op.labels.begin(), op.labels.end(), l); };
  return pos(first[0]) < pos(second[0]);
}

// One GEMM over the pair; the result is laid out (batch, left-free,
// right-free), as torch reshapes bmm's output.
Operand Contract(const Einsum& e, Operand a, Operand b, const Labels& contracted,
                 const LabelSet& kept) {
  const Labels batch = e.Group(
      [&](EinsumLabel l) { return Has(a.labels, l) && Has(b.labels, l) && kept.count(l) != 0; });
  const Labels lfree =
      e.Group([&](EinsumLabel l) { return Has(a.labels, l) && !Has(b.labels, l); });
  const Labels rfree =
      e.Group([&](EinsumLabel l) { return Has(b.labels, l) && !Has(a.labels, l); });
  MakeContiguous(e, {batch, lfree, contracted}, &a);
  MakeContiguous(e, {batch, contracted, rfree}, &b);
  const int64_t nb = e.Elems(batch), m = e.Elems(lfree), n = e.Elems(rfree),
                k = e.Elems(contracted);
  e.calls->push_back(
      GemmCall(e.ctx, nb, m, n, k, Before(a, contracted, lfree), Before(b, rfree, contracted)));
  if (e.ctx.options().training) AddGemmBackward(e.ctx, nb, m, n, k, true, true, e.calls);
  Operand out{batch, false};
  out.labels.insert(out.labels.end(), lfree.begin(), lfree.end());
  out.labels.insert(out.labels.end(), rfree.begin(), rfree.end());
  return out;
}

// Lowers the contraction of the running result `a` with operand `b`, the
// labels in `kept` surviving it.
Operand LowerPair(const Einsum& e, Operand a, Operand b, const LabelSet& kept) {
  LabelSet keep_a = kept, keep_b = kept;
  keep_a.insert(b.labels.begin(), b.labels.end());
  keep_b.insert(a.labels.begin(), a.labels.end());
  SumOut(e, keep_a, &a);
  SumOut(e, keep_b, &b);
  const Labels contracted = e.Group(
      [&](EinsumLabel l) { return Has(a.labels, l) && Has(b.labels, l) && kept.count(l) == 0; });
  if (contracted.empty()) return Multiply(e, a, b);
  return Contract(e, std::move(a), std::move(b), contracted, kept);
}

Status LowerEinsum(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty())
      return InvalidArgument("Einsum input " + std::to_string(i) + " is missing");
    shapes.push_back(ctx.T(node.inputs[i]).dims);
  }
  DLSIM_ASSIGN_OR_RETURN(EinsumEquation eq,
                         ParseEinsumEquation(node.GetString("equation", ""), shapes));
  const Einsum e{ctx, eq, CommonOrder(eq), calls};
  Operand acc = MakeOperand(eq.operands[0], shapes[0]);
  if (shapes.size() == 1) {  // a sum, or a permutation or diagonal: a view
    SumOut(e, LabelSet(eq.output.begin(), eq.output.end()), &acc);
    return Status::Ok();
  }
  for (size_t i = 1; i < shapes.size(); ++i) {
    acc = LowerPair(e, std::move(acc), MakeOperand(eq.operands[i], shapes[i]), KeptAfter(eq, i));
  }
  return Status::Ok();
}

}  // namespace

void RegisterEinsumOps(OpRegistry& registry) { registry.Register("Einsum", LowerEinsum); }

}  // namespace dlsim
