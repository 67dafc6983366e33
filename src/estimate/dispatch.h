// Host dispatch cost of a node in eager mode, from the machine's host spec.
#ifndef DLSIM_SRC_ESTIMATE_DISPATCH_H_
#define DLSIM_SRC_ESTIMATE_DISPATCH_H_

#include <string>

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

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_DISPATCH_H_
