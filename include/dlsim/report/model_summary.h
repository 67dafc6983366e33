// What `dlsim inspect` shows of a model, no machine needed: its inputs, op
// counts, forward FLOPs and kernel calls, and optionally every node.
#ifndef DLSIM_REPORT_MODEL_SUMMARY_H_
#define DLSIM_REPORT_MODEL_SUMMARY_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"

namespace dlsim {

struct NodeSummary {
  std::string name;
  std::string op_type;
  std::vector<std::string> output_shapes;  // "1x64x56x56", "?" when unknown
  double flops = 0;
  int64_t kernels = 0;
};

struct ModelSummary {
  std::string model;
  int64_t opset = 0;
  std::map<std::string, std::string> inputs;  // name -> shape
  std::map<std::string, int> op_counts;
  std::vector<NodeSummary> nodes;             // graph order
  double flops = 0;                           // forward, all calls
  int64_t kernels = 0;
  int64_t parameters = 0;
  std::vector<std::string> warnings;          // the lowering's
};

ModelSummary SummariseModel(const Graph& graph, const LoweredGraph& lowered);
// JSON (indented by 2); the node list under "node_list" when `with_nodes`.
std::string ModelSummaryToJson(const ModelSummary& summary, bool with_nodes);
void WriteModelSummaryTable(std::ostream& out, const ModelSummary& summary, bool with_nodes);

}  // namespace dlsim

#endif  // DLSIM_REPORT_MODEL_SUMMARY_H_
