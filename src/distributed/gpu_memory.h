// What one GPU holds while training a transformer under a parallel plan
// (docs/parallel.md, "Memory"): weights, gradients and Adam state sharded
// by tensor, pipeline and ZeRO; activations by Korthikanti et al. 2022
// ("Reducing Activation Recomputation in Large Transformer Models", sec. 4),
// generalised to grouped-query attention and any MLP width.
#ifndef DLSIM_SRC_DISTRIBUTED_GPU_MEMORY_H_
#define DLSIM_SRC_DISTRIBUTED_GPU_MEMORY_H_

#include "dlsim/distributed/parallel_step.h"

namespace dlsim {

// Activation bytes one layer keeps for one microbatch until its backward.
double LayerActivationBytes(const TransformerSpec& model, const ParallelPlan& plan);
// Parameters one GPU of the stage that holds more holds, before ZeRO: the
// first stage's layers and embedding, or the last's layers, final
// LayerNorm and head (an untied head, or a tied one's copy on another
// stage than the embedding).
double StageParamsPerGpu(const TransformerSpec& model, const ParallelPlan& plan);
// The larger of the first stage (embedding, most microbatches in flight)
// and the last (vocabulary head and its logits).
GpuMemory PeakGpuMemory(const TransformerSpec& model, const ParallelPlan& plan);

}  // namespace dlsim

#endif  // DLSIM_SRC_DISTRIBUTED_GPU_MEMORY_H_
