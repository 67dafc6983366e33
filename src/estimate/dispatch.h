// Host dispatch cost of a node in eager mode, from the machine's host spec.
#ifndef DLSIM_SRC_ESTIMATE_DISPATCH_H_
#define DLSIM_SRC_ESTIMATE_DISPATCH_H_

#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/machine/machine.h"
#include "dlsim/model/graph.h"

namespace dlsim {

// host.dispatch_s_by_kind[key], else host.dispatch_s.
double DispatchS(const HostSpec& host, const std::string& key);

// The dispatch of a forward node whose first call is `first` (null: a view
// or shape op, key "none"). A dtype-qualified entry ("batchnorm_infer.fp16")
// wins over the kind's: PyTorch takes another path for some ops in half
// precision (batch norm with fp16 weights runs its native kernel, not cuDNN).
double ForwardDispatchS(const HostSpec& host, const KernelCall* first);

// Whether the framework runs an op of its own for a node of `op_type`: not
// for an ONNX Identity, which exporters write for a parameter or constant
// shared under a second name (the eager model reads the tensor itself).
bool DispatchesInEager(const std::string& op_type);

// An autocast cast (--amp): an op of its own in PyTorch (aten::_to_copy, and
// in training its ToCopyBackward node), though the lowering puts it among
// the calls of the node whose input it casts.
bool IsAutocastCast(const KernelCall& call);

// The forward dispatch of a node lowered to `calls`: its op's (the first call
// that is not an autocast cast or an own op; none: "none"), plus one "copy"
// dispatch per autocast cast and each forward own op's (KernelCall::own_op).
double NodeForwardDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls);

// The backward dispatch of a node lowered to `calls` with `has_backward`:
// one "backward" for the node (unless its only backward calls are own ops),
// plus one per autocast cast of a gradient and per backward own op.
double NodeBackwardDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls,
                             bool has_backward);

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_DISPATCH_H_
