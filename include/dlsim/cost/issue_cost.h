// Issue time: how long a pointwise or row kernel takes per element with no
// byte from device memory (its tensors warm in L2), measured on one GPU by
// calibrate/torch_warm_l2.py and fitted by tools/fit_issue_costs.py into the
// CSV a machine file names as calibration.issue_costs:
//   # comment lines (what was measured, where, with what)
//   kind,op,arity,cols,dtype,issue_ps_per_elem
//   elementwise,gelu,1,0,fp16,1.0700
//   layernorm_fwd,-,0,768,fp16,2.5110
// A kernel whose issue time is close to its memory time gains less from a
// faster memory: ScaleCost (roofline.h) uses it. docs/cost-model.md.
#ifndef DLSIM_COST_ISSUE_COST_H_
#define DLSIM_COST_ISSUE_COST_H_

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

class IssueCostTable {
 public:
  // Reads the CSV above; errors name the file and line.
  static Result<IssueCostTable> Load(const std::string& path);
  // The table `machine`'s calibration.issue_costs names; empty when none.
  static Result<IssueCostTable> ForMachine(const Machine& machine);

  // An elementwise op ("gelu", arity 1) or a row kernel ("layernorm_fwd" with
  // its row length in `cols`, op "-" and arity 0).
  void Add(const std::string& kind, const std::string& op, int arity, int cols,
           const std::string& dtype, double ps_per_elem);

  // Issue time of `call` on the GPU the table was measured on, in seconds;
  // 0 when the table has no entry for its kind, op or dtype. Elementwise
  // calls match op, arity and dtype (any arity if that one is missing; bf16
  // falls back to fp16); row kernels interpolate the cost per element in
  // log(cols) between the measured row lengths and hold it outside them.
  double IssueSeconds(const KernelCall& call) const;

  bool empty() const { return elementwise_.empty() && rows_.empty(); }

 private:
  double ElementwisePs(const std::string& op, int arity, const std::string& dtype) const;
  double RowsPs(const std::string& kind, double cols, const std::string& dtype) const;

  // (op, dtype) -> arity -> ps per element.
  std::map<std::pair<std::string, std::string>, std::map<int, double>> elementwise_;
  // (kind, dtype) -> cols -> ps per element.
  std::map<std::pair<std::string, std::string>, std::map<int, double>> rows_;
};

}  // namespace dlsim

#endif  // DLSIM_COST_ISSUE_COST_H_
