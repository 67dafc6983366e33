// Activation recomputation's segments (private to src/estimate): where a
// training step keeps only each segment's inputs and recomputes the rest in
// the backward, as torch.utils.checkpoint over each layer (full) or over
// each attention core (selective) does.
#ifndef DLSIM_SRC_ESTIMATE_CHECKPOINT_SEGMENTS_H_
#define DLSIM_SRC_ESTIMATE_CHECKPOINT_SEGMENTS_H_

#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/util/recompute.h"

namespace dlsim {

// Per node, the index of its segment, -1 where nothing is recomputed.
//
// Full: every node is in one (0, 1, ...: consecutive in graph order). A
// segment ends at a node after which one activation dominates
// what is alive (a layer boundary: the residual stream between transformer blocks,
// the tensor between CNN stages) once it holds at least sqrt(n) of the n
// nodes that launch kernels; so a transformer gets a segment per block and
// a plain chain about sqrt(n) segments of sqrt(n) nodes.
//
// Selective: one segment per attention core, the nodes on the paths from its
// QKᵀ MatMul (two activations) through the elementwise ops (scale, mask),
// the Softmax and its dropout or cast to the MatMul with V; or the nodes of
// a fused attention group (scaled_dot_product_attention). The rest: -1.
std::vector<int> CheckpointSegments(const Graph& graph, const LoweredGraph& lowered,
                                    Recompute recompute);

// Appends to the calls of every node in a segment (segment >= 0) a copy of
// its forward calls in the backward phase: their recomputation.
void AddRecomputeCalls(const std::vector<int>& segments, LoweredGraph* lowered);

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_CHECKPOINT_SEGMENTS_H_
