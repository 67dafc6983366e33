// Internal: pricers backed by the performance database (measured exact keys,
// then the models fitted on that GPU's measurements).
#ifndef DLSIM_COST_DB_PRICERS_H_
#define DLSIM_COST_DB_PRICERS_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

// The measured-then-fitted pricer of `machine`'s database, or nullptr when
// the machine names none or the file is absent (a note says so).
Result<std::shared_ptr<const KernelPricer>> BuildDatabasePricer(
    const Machine& machine, std::vector<std::string>* notes);

}  // namespace dlsim

#endif  // DLSIM_COST_DB_PRICERS_H_
