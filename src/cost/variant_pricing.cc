#include "variant_pricing.h"

#include "db_pricers.h"
#include "dlsim/cost/roofline.h"
#include "dlsim/machine/machine_io.h"

namespace dlsim {

Result<std::shared_ptr<const VariantPricing>> VariantPricing::ForReference(const std::string& reference_path) {
  auto pricing = std::make_shared<VariantPricing>();
  if (!reference_path.empty()) {
    DLSIM_ASSIGN_OR_RETURN(Machine ref, LoadMachine(reference_path));
    DLSIM_ASSIGN_OR_RETURN(DatabasePricers db, BuildDatabasePricers(ref, &pricing->notes_));
    pricing->reference_ = db.All();
    pricing->reference_device_ = ref.device;
    DLSIM_ASSIGN_OR_RETURN(pricing->issue_, IssueCostTable::ForMachine(ref));
  }
  return std::shared_ptr<const VariantPricing>(std::move(pricing));
}

std::optional<CallCost> VariantPricing::OnReference(const KernelCall& call) const {
  if (!reference_) return std::nullopt;
  return reference_->Price(call);
}

CallCost VariantPricing::OnVariant(const KernelCall& call, const std::optional<CallCost>& reference_cost,
                                   const DeviceSpec& variant) const {
  if (reference_cost) return ScaleCost(call, *reference_cost, reference_device_, variant, RooflineParams{}, issue_);
  return RooflineCost(call, variant, RooflineParams{});
}

bool PricedAsVariant(const Machine& machine) { return machine.calibration.perf_db.empty(); }

}  // namespace dlsim
