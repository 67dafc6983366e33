// The shape of a GPT-style transformer read from its ONNX graph, for
// `dlsim scale --onnx` (docs/parallel.md): the repeated blocks found by their
// normalisations, their widths by the weight matrices they multiply.
#ifndef DLSIM_DISTRIBUTED_TRANSFORMER_FROM_GRAPH_H_
#define DLSIM_DISTRIBUTED_TRANSFORMER_FROM_GRAPH_H_

#include "dlsim/machine/training_job.h"
#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Reads, from a graph with static shapes:
// - layers: the LayerNormalization / RMSNormalization / SimplifiedLayerNorm
//   nodes, two per block and one final (2 L + 1);
// - hidden: their scale's length;
// - heads: the head dimension of a rank-4 Softmax input [b, heads, s, s],
//   or an Attention node's q_num_heads;
// - ffn_hidden, kv_heads, gated_ffn: the 2-D weights with one side equal to
//   hidden (three of the MLP width per block: gated);
// - vocab: the largest embedding table (a Gather on a [vocab, hidden] weight);
// - seq_len: the last dim of the first graph input.
// Errors name the model and what could not be found.
Result<TransformerSpec> TransformerFromGraph(const Graph& graph);

}  // namespace dlsim

#endif  // DLSIM_DISTRIBUTED_TRANSFORMER_FROM_GRAPH_H_
