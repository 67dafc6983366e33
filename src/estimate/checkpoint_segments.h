// Activation checkpointing's segments (private to src/estimate): where a
// training step keeps only each segment's inputs and recomputes the rest in
// the backward, as torch.utils.checkpoint over each layer does.
#ifndef DLSIM_SRC_ESTIMATE_CHECKPOINT_SEGMENTS_H_
#define DLSIM_SRC_ESTIMATE_CHECKPOINT_SEGMENTS_H_

#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"

namespace dlsim {

// Per node, the index of its segment (0, 1, ...: consecutive in graph
// order). A segment ends at a node after which one activation dominates
// what is alive (a layer boundary: the residual stream between transformer blocks,
// the tensor between CNN stages) once it holds at least sqrt(n) of the n
// nodes that launch kernels; so a transformer gets a segment per block and
// a plain chain about sqrt(n) segments of sqrt(n) nodes.
std::vector<int> CheckpointSegments(const Graph& graph, const LoweredGraph& lowered);

// Appends to every node's calls a copy of its forward calls in the backward
// phase: the recomputation of checkpointed segments.
void AddRecomputeCalls(LoweredGraph* lowered);

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_CHECKPOINT_SEGMENTS_H_
