// The kernel calls one GPU runs for one microbatch of a tensor-parallel
// transformer (docs/parallel.md, "Training at scale"): Megatron-LM's column
// and row split of attention and the MLP over `tensor` GPUs, the token
// dimension split as well with sequence parallelism. Keys as the ONNX
// lowering writes them (docs/kernel-keys.md), so the same pricing applies.
#ifndef DLSIM_SRC_DISTRIBUTED_TRANSFORMER_CALLS_H_
#define DLSIM_SRC_DISTRIBUTED_TRANSFORMER_CALLS_H_

#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/machine/training_job.h"

namespace dlsim {

// Forward and backward calls of one piece of the model for one microbatch.
// `recompute`: the forward calls that run again before the backward
// (full: the whole layer; selective: attention's core when it is unfused).
struct PassCalls {
  std::vector<KernelCall> fwd;
  std::vector<KernelCall> bwd;
  std::vector<KernelCall> recompute;
};

// One transformer block on one tensor-parallel rank.
PassCalls TransformerLayerCalls(const TransformerSpec& model, const ParallelPlan& plan);
// The token and position embedding (first stage).
PassCalls EmbeddingCalls(const TransformerSpec& model, const ParallelPlan& plan);
// The final LayerNorm, the vocabulary-parallel head and the cross-entropy
// loss (last stage).
PassCalls HeadCalls(const TransformerSpec& model, const ParallelPlan& plan);
// Calls that each run `times` times.
struct RepeatedCalls {
  std::vector<KernelCall> calls;
  double times = 0;
};

// The optimizer step over `params` parameters (one GPU's share): Megatron's
// fused Adam, or the passes of PyTorch's foreach AdamW, each in launches of
// at most 320 x 65,536 elements (multi_tensor_apply's chunk).
std::vector<RepeatedCalls> OptimizerCalls(const ParallelPlan& plan, double params);
// PyTorch's gradient accumulation: every microbatch after the first adds
// each fp32 weight gradient into `.grad` (one add over the stage's `params`,
// run microbatches - 1 times); Megatron accumulates in the weight-gradient
// GEMM, and one microbatch needs none.
RepeatedCalls GradAccumulationCalls(const ParallelPlan& plan, double params);
// PyTorch's own work for one microbatch of one layer (autocast's weight
// casts and their gradients', the casts around each fp32 LayerNorm, the
// q/k/v gradients' concat, FSDP's gather and scatter copies); none for
// Megatron-LM.
PassCalls FrameworkLayerCalls(const TransformerSpec& model, const ParallelPlan& plan);
// DDP's work per step: each gradient multiplied by 1 / world size into its
// bucket and copied back. One call per gradient tensor of a layer, each run
// `times` (two passes x the stage's layers); none without DDP.
RepeatedCalls DdpStepCalls(const TransformerSpec& model, const ParallelPlan& plan);

}  // namespace dlsim

#endif  // DLSIM_SRC_DISTRIBUTED_TRANSFORMER_CALLS_H_
