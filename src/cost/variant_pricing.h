// Pricing many variants of one machine (dlsim sweep). A variant's cost model
// is the chain CostModel::ForMachine builds for a machine without a database
// of its own: calls its calibration.scale_from reference can price are
// scaled from there to the variant's device, the rest priced by the
// variant's roofline. Building that chain opens and loads the reference's
// database (about 0.2 s for the bundled H100); VariantPricing loads it once
// and lets the caller price each call on the reference once, then scale the
// same reference cost to every variant: exactly the figures the chain gives.
#ifndef DLSIM_SRC_COST_VARIANT_PRICING_H_
#define DLSIM_SRC_COST_VARIANT_PRICING_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/cost/issue_cost.h"
#include "dlsim/machine/machine.h"

namespace dlsim {

class VariantPricing {
 public:
  // For variants whose calibration.scale_from is `reference_path` ("" for
  // variants with no reference: roofline pricing only).
  static Result<std::shared_ptr<const VariantPricing>> ForReference(const std::string& reference_path);

  // The call's cost on the reference (nullopt where it has no price, or
  // there is no reference).
  std::optional<CallCost> OnReference(const KernelCall& call) const;
  // The call's cost on `variant`, given its reference cost.
  CallCost OnVariant(const KernelCall& call, const std::optional<CallCost>& reference_cost,
                     const DeviceSpec& variant) const;
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::shared_ptr<const KernelPricer> reference_;  // null: no reference
  DeviceSpec reference_device_;
  IssueCostTable issue_;  // the reference GPU's measured issue costs
  std::vector<std::string> notes_;
};

// True when CostModel::ForMachine(machine) is the chain VariantPricing
// reproduces: no database of its own.
bool PricedAsVariant(const Machine& machine);

}  // namespace dlsim

#endif  // DLSIM_SRC_COST_VARIANT_PRICING_H_
