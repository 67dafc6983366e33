// Peak device memory of one step as PyTorch allocates it: what
// torch.cuda.max_memory_allocated reports in steady state (docs/memory.md).
// Tensors live from the node that writes them to their last reader (in
// training, to the backward of the last op that saves them); the peak is
// the largest sum over the schedule, every block rounded up as the caching
// allocator rounds it.
#ifndef DLSIM_ESTIMATE_MEMORY_MODEL_H_
#define DLSIM_ESTIMATE_MEMORY_MODEL_H_

#include <cstdint>
#include <string>

#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"

#include "dlsim/util/optimizer.h"
#include "dlsim/util/recompute.h"

namespace dlsim {

// The footprint at the step where it peaks, broken down. Weights and
// optimizer state are held throughout; gradients and activations are those
// alive at the peak.
struct MemoryFootprint {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_state_bytes = 0;
  double activations_bytes = 0;  // activations, their gradients and the graph inputs
  double workspace_bytes = 0;    // transient buffers of the op running at the peak
  std::string peak_at;           // "forward NODE", "backward NODE" or "optimizer"
  // The largest activations_bytes + workspace_bytes at any step (the
  // optimizer step's temporaries aside): what grows with the batch (the peak
  // moves there at a large batch).
  double activations_max_bytes = 0;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_state_bytes + activations_bytes +
           workspace_bytes;
  }
};

// The caching allocator's block of a `bytes` request: a multiple of 512
// bytes, at least 512 (0 for 0).
double AllocatorBlockBytes(double bytes);

struct MemoryOptions {
  bool training = false;
  DType dtype = DType::kFloat32;  // float tensors' dtype (inference); autocast's low dtype
  bool autocast = false;
  Optimizer optimizer = Optimizer::kSgdMomentum;
  // Activation recomputation (training): only each segment's inputs are kept
  // over the forward; the segment's saved tensors come back, recomputed, at
  // the start of its backward (src/estimate/checkpoint_segments.h). Full:
  // segments of layers; selective: the attention cores.
  Recompute recompute = Recompute::kNone;
  // Data parallelism across `data_parallel_gpus` (DataParallelOptions):
  // DistributedDataParallel's bucket buffers (as large as the gradients,
  // beside them) with ZeRO 0 and 1; ZeRO stage 1 keeps 1/gpus of the
  // optimizer state, 2 also of the gradients (each full gradient lives only
  // while its node's backward runs) and, as FSDP's SHARD_GRAD_OP, the
  // weights' shard beside the gathered weights, 3 only the weights' shard
  // (each op's weights gathered in full while it runs).
  int data_parallel_gpus = 1;
  int zero_stage = 0;
};

MemoryFootprint PeakMemory(const Graph& graph, const LoweredGraph& lowered,
                           const MemoryOptions& options);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_MEMORY_MODEL_H_
