// Internal: pricers backed by the performance database (measured exact keys,
// then the models fitted on that GPU's measurements).
#ifndef DLSIM_COST_DB_PRICERS_H_
#define DLSIM_COST_DB_PRICERS_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/machine/machine.h"
#include "dlsim/perfdb/kernel_counts.h"
#include "dlsim/util/status.h"

namespace dlsim {

// The pricers of `machine`'s database: its measured keys; the models fitted
// on them, by the call's own math; and where its math has no model, the other
// 16-bit math's (fp16 for bf16 and back). The fitted ones are null when it has
// no model; all null when the machine names no database or the file is
// absent (a note says so).
struct DatabasePricers {
  std::shared_ptr<const KernelPricer> measured;
  std::shared_ptr<const KernelPricer> fitted;
  std::shared_ptr<const KernelPricer> stand_in;
  // The kernels per call its database counted (null when it counted none).
  std::shared_ptr<const KernelCounts> counts;
  // Measured, fitted, stand-in (null when measured is).
  std::shared_ptr<const KernelPricer> All() const;
};

Result<DatabasePricers> BuildDatabasePricers(const Machine& machine,
                                             std::vector<std::string>* notes);

}  // namespace dlsim

#endif  // DLSIM_COST_DB_PRICERS_H_
