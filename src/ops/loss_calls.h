// The kernels PyTorch runs for a training step's loss over the model's first
// output (lowering.cc attaches them to the node that writes it). Private to
// src/ops.
#ifndef DLSIM_SRC_OPS_LOSS_CALLS_H_
#define DLSIM_SRC_OPS_LOSS_CALLS_H_

#include <string>
#include <vector>

#include "dlsim/util/loss.h"
#include "op_registry.h"

namespace dlsim {

struct LossCalls {
  std::vector<KernelCall> forward;   // after the output's forward
  std::vector<KernelCall> backward;  // before the output's backward
};

// `loss` over tensor `output`, in fp32 as PyTorch computes both losses (a
// 16-bit output is cast up first and its gradient cast back):
// - kMean, output.float().mean(): the mean; backward the seed gradient's
//   one-element fill and the mean's backward over the output;
// - kCrossEntropy, F.cross_entropy over the last axis (rows = the other
//   elements, cols = the last dim) with one integer target a row:
//   log_softmax and the NLL reduction; backward the seed fill, the NLL
//   backward (the zeroed gradient of the logits, then one element a row
//   scattered into it) and log_softmax's backward.
// Every call but the casts is an own op (KernelCall::own_op). kNone: none.
LossCalls LowerLoss(const LowerContext& ctx, Loss loss, const std::string& output);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_LOSS_CALLS_H_
