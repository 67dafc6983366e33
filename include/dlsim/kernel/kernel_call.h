// A kernel call: one library call a framework makes for a node (Benanza's
// layer -> cuDNN/cuBLAS mapping), with its work and its key (key.h). The
// lowering (src/ops) makes them; costing, the engine, the analyses and the
// profile comparison read them.
#ifndef DLSIM_KERNEL_KERNEL_CALL_H_
#define DLSIM_KERNEL_KERNEL_CALL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/kernel/kernel_kind.h"
#include "dlsim/kernel/key.h"
#include "dlsim/kernel/layout.h"
#include "dlsim/kernel/phase.h"
#include "dlsim/util/dtype.h"

namespace dlsim {

struct KernelCall {
  KernelKind kind = KernelKind::kElementwise;
  std::string library_call;  // e.g. "cudnnConvolutionForward"
  Phase phase = Phase::kForward;
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  DType dtype = DType::kFloat32;
  MathMode math = MathMode::kFp32;
  Layout layout = Layout::kNone;
  // Parameters in key order; numeric ones hold decimal integers.
  KeyParamList params;

  // Bytes of this call's input that the kernel issued just before it wrote
  // (set by the estimator's plan, 0 = none): read from L2 rather than device
  // memory when they fit there. Not part of the key.
  double resident_input_bytes = 0;
  // A framework op of its own among its node's calls, which the host
  // dispatches apart from the node's first op: a batch norm an exporter
  // folded into a convolution, the steps of the training loss. Not part of
  // the key.
  bool own_op = false;

  double bytes() const { return bytes_read + bytes_written; }
  // The database key (key.h).
  std::string Key() const;
  // Parameter lookup; `fallback` when absent or not an integer.
  int64_t IntParam(const std::string& name, int64_t fallback) const;
  std::string StrParam(const std::string& name, const std::string& fallback) const;
  void AddParam(const std::string& name, int64_t value);
  void AddParam(const std::string& name, const std::string& value);
};

// The call's key in parsed form (what ParseKernelKey(call.Key()) gives).
ParsedKey KeyOf(const KernelCall& call);

}  // namespace dlsim

#endif  // DLSIM_KERNEL_KERNEL_CALL_H_
