// Internal: options that change no kernel call of a given model, said as
// warnings (issue 25: an option that cannot change the estimate says so).
#ifndef DLSIM_SRC_ESTIMATE_NO_OP_OPTIONS_H_
#define DLSIM_SRC_ESTIMATE_NO_OP_OPTIONS_H_

#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"

namespace dlsim {

// One warning for each of --layout nhwc, --tf32 and --fuse that `options`
// asks for and that set no call of `lowered` (`graph` lowered with
// `options`): no call in NHWC, no fp32 call that TF32 applies to, no fused
// conv_bias_act. Names what the graph lacks.
std::vector<std::string> NoOpOptionWarnings(const Graph& graph, const LoweredGraph& lowered,
                                            const LoweringOptions& options);

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_NO_OP_OPTIONS_H_
