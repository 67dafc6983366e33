#include "dlsim/cost/cost_model.h"

#include <cstdio>

#include "db_pricers.h"
#include "dlsim/cost/roofline.h"
#include "dlsim/machine/machine_io.h"

namespace dlsim {
namespace {

std::string AchievedBandwidthNote(const Machine& machine, const Machine& ref,
                                  const DeviceSpec& target) {
  char text[320];
  std::snprintf(text, sizeof text,
                "%s gives no measured_memory_bw_gbs: scaling from %s takes %.0f GB/s, the share "
                "%s reaches of its datasheet figure (%.3f) times %.0f GB/s",
                machine.name.c_str(), ref.name.c_str(),
                target.measured_memory_bw_bytes_per_s / 1e9, ref.name.c_str(),
                ref.device.measured_memory_bw_bytes_per_s / ref.device.memory_bw_bytes_per_s,
                machine.device.memory_bw_bytes_per_s / 1e9);
  return text;
}

}  // namespace

const char* CostSourceName(CostSource source) {
  switch (source) {
    case CostSource::kMeasured: return "measured";
    case CostSource::kFitted: return "fitted";
    case CostSource::kScaled: return "scaled";
    case CostSource::kRoofline: return "roofline";
  }
  return "roofline";
}

const char* BoundName(Bound bound) {
  switch (bound) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kLatency: return "latency";
  }
  return "latency";
}

CostModel CostModel::RooflineOnly(const Machine& machine) {
  CostModel model;
  model.machine_ = std::make_shared<Machine>(machine);
  model.chain_.push_back(std::make_shared<RooflinePricer>(machine.device, RooflineParams{}));
  return model;
}

namespace {

// The pricers of `machine`'s calibration.scale_from reference's database,
// scaled to `machine`'s device (all null when it names none, or the
// reference has no database).
Result<DatabasePricers> ScaledReference(const Machine& machine, std::vector<std::string>* notes) {
  if (machine.calibration.scale_from.empty()) return DatabasePricers{};
  auto ref = LoadMachine(machine.calibration.scale_from);
  if (!ref.ok()) return ref.status().WithContext(machine.source_path + ": calibration.scale_from");
  DLSIM_ASSIGN_OR_RETURN(DatabasePricers db, BuildDatabasePricers(*ref, notes));
  if (!db.measured) return DatabasePricers{};
  const DeviceSpec target = WithAchievedMemoryBw(machine.device, ref->device);
  if (target.measured_memory_bw_bytes_per_s != machine.device.measured_memory_bw_bytes_per_s) {
    notes->push_back(AchievedBandwidthNote(machine, *ref, target));
  }
  DLSIM_ASSIGN_OR_RETURN(IssueCostTable issue, IssueCostTable::ForMachine(*ref));
  auto scale = [&](std::shared_ptr<const KernelPricer> p) -> std::shared_ptr<const KernelPricer> {
    if (!p) return nullptr;
    return std::make_shared<ScaledPricer>(p, ref->device, target, RooflineParams{}, issue);
  };
  return DatabasePricers{scale(db.measured), scale(db.fitted), scale(db.stand_in), db.counts};
}

}  // namespace

// Pricing order (docs/machine-format.md): a key measured on this GPU, then
// one measured on the reference, scaled; then this GPU's fitted models of the
// call's math, then the reference's, scaled; then the other 16-bit math's
// models standing in, this GPU's then the reference's; the roofline last. A
// measurement of the same kernel on a GPU of the same kind, scaled, is
// closer than a fitted model, and a model of the call's own math than one of
// another math.
Result<CostModel> CostModel::ForMachine(const Machine& machine) {
  CostModel model = RooflineOnly(machine);
  DLSIM_ASSIGN_OR_RETURN(DatabasePricers own, BuildDatabasePricers(machine, &model.notes_));
  DLSIM_ASSIGN_OR_RETURN(DatabasePricers scaled, ScaledReference(machine, &model.notes_));
  for (const auto& p : {own.measured, scaled.measured, own.fitted, scaled.fitted, own.stand_in,
                        scaled.stand_in}) {
    if (p) model.AddPricer(p);
  }
  model.AddKernelCounts(own.counts);
  model.AddKernelCounts(scaled.counts);
  return model;
}

void CostModel::AddKernelCounts(std::shared_ptr<const KernelCounts> counts) {
  if (counts) counts_.push_back(std::move(counts));
}

// A call launches the same kernels whichever source priced it: its count
// comes from the databases' counts, not from the pricer.
CallCost CostModel::Price(const KernelCall& call) const {
  for (const auto& pricer : chain_) {
    if (auto cost = pricer->Price(call)) {
      const std::string key = counts_.empty() ? std::string() : call.Key();
      for (const auto& counts : counts_) {
        if (auto n = counts->Of(key)) {
          cost->kernels = *n;
          break;
        }
      }
      return *cost;
    }
  }
  DLSIM_CHECK_MSG(false, "the roofline pricer always prices");
  return CallCost{};
}

}  // namespace dlsim
