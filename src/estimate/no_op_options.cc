#include "no_op_options.h"

namespace dlsim {
namespace {

bool SameCalls(const LoweredGraph& a, const LoweredGraph& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const std::vector<KernelCall>& x = a.nodes[i].calls;
    const std::vector<KernelCall>& y = b.nodes[i].calls;
    if (x.size() != y.size()) return false;
    for (size_t j = 0; j < x.size(); ++j) {
      if (x[j].Key() != y[j].Key()) return false;
    }
  }
  return true;
}

// Whether lowering with `without` gives the calls of `lowered`.
bool NoEffect(const Graph& graph, const LoweredGraph& lowered, const LoweringOptions& without) {
  Result<LoweredGraph> other = LowerGraph(graph, without);
  return other.ok() && SameCalls(lowered, *other);
}

}  // namespace

std::vector<std::string> NoOpOptionWarnings(const Graph& graph, const LoweredGraph& lowered,
                                            const LoweringOptions& options) {
  std::vector<std::string> out;
  if (options.layout == Layout::kNhwc) {
    LoweringOptions nchw = options;
    nchw.layout = Layout::kNchw;
    if (NoEffect(graph, lowered, nchw)) {
      out.push_back("--layout nhwc changes no kernel call of " + graph.name +
                    ": no convolution, pooling or normalisation over image tensors");
    }
  }
  if (options.fuse_conv_bias_act) {
    LoweringOptions unfused = options;
    unfused.fuse_conv_bias_act = false;
    if (NoEffect(graph, lowered, unfused)) {
      out.push_back("--fuse changes no kernel call of " + graph.name +
                    ": no convolution followed by a Relu to fuse it with");
    }
  }
  return out;
}

}  // namespace dlsim
