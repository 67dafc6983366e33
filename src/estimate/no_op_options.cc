#include "no_op_options.h"

namespace dlsim {
namespace {

// Whether any call of `lowered` satisfies `pred`.
template <typename Pred>
bool AnyCall(const LoweredGraph& lowered, Pred pred) {
  for (const LoweredNode& node : lowered.nodes) {
    for (const KernelCall& call : node.calls) {
      if (pred(call)) return true;
    }
  }
  return false;
}

}  // namespace

// Read off the calls already lowered (no second lowering): --layout sets the
// layout of the convolution, pooling and normalisation calls, and --fuse
// only ever writes conv_bias_act calls.
std::vector<std::string> NoOpOptionWarnings(const Graph& graph, const LoweredGraph& lowered,
                                            const LoweringOptions& options) {
  std::vector<std::string> out;
  if (options.layout == Layout::kNhwc &&
      !AnyCall(lowered, [](const KernelCall& c) { return c.layout == Layout::kNhwc; })) {
    out.push_back("--layout nhwc changes no kernel call of " + graph.name +
                  ": no convolution, pooling or normalisation over image tensors");
  }
  // TF32 is a math mode of fp32 convolutions, GEMMs and recurrent layers
  // (autocast's fp32 ones included); other kinds run no tensor-core math.
  if (options.tf32_given && !AnyCall(lowered, [](const KernelCall& c) {
        return c.dtype == DType::kFloat32 && (IsComputeKind(c.kind) && c.kind != KernelKind::kAttentionFwd &&
                                              c.kind != KernelKind::kAttentionBwd);
      })) {
    out.push_back("--tf32 changes no kernel call of " + graph.name +
                  ": no fp32 convolution, GEMM or recurrent layer");
  }
  if (options.fuse_conv_bias_act &&
      !AnyCall(lowered, [](const KernelCall& c) { return c.kind == KernelKind::kConvBiasAct; })) {
    out.push_back("--fuse changes no kernel call of " + graph.name +
                  ": no convolution followed by a Relu to fuse it with");
  }
  return out;
}

}  // namespace dlsim
