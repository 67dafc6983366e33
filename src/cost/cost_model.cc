#include "dlsim/cost/cost_model.h"

#include "db_pricers.h"
#include "dlsim/cost/roofline.h"
#include "dlsim/machine/machine_io.h"

namespace dlsim {

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

Result<CostModel> CostModel::ForMachine(const Machine& machine) {
  CostModel model = RooflineOnly(machine);
  const CalibrationSpec& cal = machine.calibration;
  if (!cal.perf_db.empty()) {
    DLSIM_ASSIGN_OR_RETURN(auto own, BuildDatabasePricer(machine, &model.notes_));
    if (own) model.AddPricer(own);
  }
  if (!cal.scale_from.empty()) {
    auto ref = LoadMachine(cal.scale_from);
    if (!ref.ok()) {
      return ref.status().WithContext(machine.source_path + ": calibration.scale_from");
    }
    DLSIM_ASSIGN_OR_RETURN(auto ref_pricer, BuildDatabasePricer(*ref, &model.notes_));
    if (ref_pricer) {
      model.AddPricer(std::make_shared<ScaledPricer>(ref_pricer, ref->device, machine.device,
                                                     RooflineParams{}));
    }
  }
  return model;
}

CallCost CostModel::Price(const KernelCall& call) const {
  for (const auto& pricer : chain_) {
    if (auto cost = pricer->Price(call)) return *cost;
  }
  DLSIM_CHECK_MSG(false, "the roofline pricer always prices");
  return CallCost{};
}

}  // namespace dlsim
