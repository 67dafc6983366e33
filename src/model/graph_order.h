// Graph-level checks and ordering done once at import: unique node names,
// every node input defined, every value produced once, topological order.
#ifndef DLSIM_SRC_MODEL_GRAPH_ORDER_H_
#define DLSIM_SRC_MODEL_GRAPH_ORDER_H_

#include <string>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Names unnamed nodes "<OpType>_<index>" and renames duplicate names so that
// every node name is unique.
void AssignUniqueNodeNames(Graph& graph);

// Sorts graph.nodes topologically, keeping the file's order where it is free
// (a stable Kahn sort). `graph.tensors` must already hold the graph inputs and
// initializers. Fails, naming `file` and the node or tensor, on a node input
// that nothing defines, a value produced twice, or a cycle.
Status SortNodesTopologically(Graph& graph, const std::string& file);

}  // namespace dlsim

#endif  // DLSIM_SRC_MODEL_GRAPH_ORDER_H_
