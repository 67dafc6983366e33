// Mixed precision as torch.autocast runs it (private to src/ops). Weights
// and graph inputs stay fp32; matrix ops (MatMul, Gemm, Conv, ConvTranspose,
// Einsum, RNNs, Attention) cast their float inputs to the low dtype and
// write it; ops on autocast's fp32 list (softmax, the norms but batch norm,
// exp/log/pow, sums) cast low inputs to fp32 and write fp32; every other op
// runs in the widest dtype of its activation inputs (weights and scalars do
// not promote). Each weight is cast once a forward (autocast's cache), the
// bias of a Linear too (MatMul then Add of a 1-D weight: F.linear casts all
// three operands); in training every cast of a tensor that needs a gradient
// has a backward cast.
#ifndef DLSIM_SRC_OPS_AUTOCAST_H_
#define DLSIM_SRC_OPS_AUTOCAST_H_

#include <map>
#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "op_registry.h"

namespace dlsim {

struct AutocastCast {
  std::string tensor;
  DType to = DType::kFloat32;
  bool needs_grad = true;  // false for graph inputs: no backward cast
};

struct AutocastPlan {
  std::map<std::string, DType> tensor_dtype;  // every float tensor's run dtype
  std::vector<DType> node_dtype;              // per node: the dtype it computes in
  std::vector<std::vector<AutocastCast>> casts;  // per node: inputs cast first
  // Per node: activation inputs in the low dtype of a node that computes in
  // fp32 (a residual Add of a 16-bit branch and the fp32 stream). Autograd
  // casts the fp32 gradient it hands such an input to the input's dtype,
  // one copy kernel after the node's backward, in training only.
  std::vector<std::vector<AutocastCast>> grad_casts;
};

// The plan for ctx's graph with matrix ops in `low` (fp16 or bf16).
AutocastPlan PlanAutocast(const LowerContext& ctx, DType low);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_AUTOCAST_H_
