#include "db_pricers.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "dlsim/cost/roofline.h"
#include "dlsim/perfdb/fit.h"
#include "dlsim/perfdb/kernel_counts.h"
#include "dlsim/perfdb/perf_db.h"
#include "dlsim/perfdb/timing_table.h"

namespace dlsim {
namespace {

// Exact key measured on this GPU: the fastest algorithm, as a framework that
// benchmarks (PyTorch with cudnn.benchmark) picks.
class MeasuredPricer : public KernelPricer {
 public:
  MeasuredPricer(TimingTable table, const DeviceSpec& device)
      : table_(std::move(table)), device_(device) {}
  std::optional<CallCost> Price(const KernelCall& call) const override {
    const KeyTiming* t = table_.Find(call.Key());
    if (t == nullptr) return std::nullopt;
    CallCost c;
    c.time_s = t->fastest_ms * 1e-3;
    c.p10_s = t->p10_ms * 1e-3;
    c.p90_s = t->p90_ms * 1e-3;
    c.algo = t->fastest_algo;
    if (t->has_heuristic()) {
      c.heuristic_time_s = t->heuristic_ms * 1e-3;
      c.heuristic_algo = t->heuristic_algo;
    }
    c.source = CostSource::kMeasured;
    c.bound = RooflineTime(call, device_, RooflineParams{}).bound;
    return c;
  }

 private:
  TimingTable table_;
  DeviceSpec device_;
};

// The database times each call with its inputs cold in L2, so a GEMM takes at
// least the time to read its operands once from device memory at the
// datasheet bandwidth. A fitted price below that (the neighbour correction of
// a weight-streaming GEMV, m = 1, borrowing from keys that reuse their
// operands) is not a time the GPU can run; 0 for other kinds, whose bytes read
// are not all compulsory.
double OperandReadFloorSeconds(const KernelCall& call, const DeviceSpec& device) {
  if (call.kind != KernelKind::kGemm && call.kind != KernelKind::kBatchedGemm) return 0;
  if (!(device.memory_bw_bytes_per_s > 0)) return 0;
  return call.bytes_read / device.memory_bw_bytes_per_s;
}

// Per-op-class models fitted on this GPU's measurements, corrected by the
// measured keys nearest to the call (docs/perfdb.md, "Neighbour correction").
// kExact prices a call only by its own math's class; kStandIn only by the
// other 16-bit math's (fp16 for bf16 and back) where its own has none.
enum class FitMath { kExact, kStandIn };

class FittedPricer : public KernelPricer {
 public:
  FittedPricer(std::shared_ptr<const FittedModels> models, const DeviceSpec& device, FitMath math)
      : models_(std::move(models)), device_(device), math_(math) {}
  std::optional<CallCost> Price(const KernelCall& call) const override {
    auto key = ParseKernelKey(call.Key());
    if (!key.ok()) return std::nullopt;
    const FitClassReport* fit = models_->Find(key->kind, key->math);
    if (fit == nullptr || (fit->math == key->math) != (math_ == FitMath::kExact)) {
      return std::nullopt;
    }
    std::optional<double> t = models_->PredictSeconds(*key);
    if (!t || !(*t > 0)) return std::nullopt;
    const double floor_s = OperandReadFloorSeconds(call, device_);
    t = std::max(*t, floor_s);
    CallCost c;
    c.time_s = c.p10_s = c.p90_s = *t;
    if (fit->n_band > 0) {
      // the spread of the error on keys of models the fit never saw
      c.p10_s = *t * std::min(1.0, std::exp(fit->band_log_p10));
      c.p90_s = *t * std::max(1.0, std::exp(fit->band_log_p90));
    } else if (!std::isnan(fit->chosen_test_p90_rel_err())) {
      // else the held-out error of the correction in use
      c.p10_s = *t * std::max(0.0, 1 - fit->chosen_test_p90_rel_err());
      c.p90_s = *t * (1 + fit->chosen_test_p90_rel_err());
    }
    c.p10_s = std::max(c.p10_s, floor_s);
    c.source = CostSource::kFitted;
    c.bound = RooflineTime(call, device_, RooflineParams{}).bound;
    return c;
  }

 private:
  std::shared_ptr<const FittedModels> models_;
  DeviceSpec device_;
  FitMath math_;
};

// The database's cold-L2 times, made warm for calls whose input the kernel
// before them just wrote and that fits in L2 (calibration.l2_resident_factor).
class L2ResidentPricer : public KernelPricer {
 public:
  L2ResidentPricer(std::shared_ptr<const KernelPricer> inner, std::map<std::string, double> factors,
                   double l2_bytes)
      : inner_(std::move(inner)), factors_(std::move(factors)), l2_bytes_(l2_bytes) {}
  std::optional<CallCost> Price(const KernelCall& call) const override {
    std::optional<CallCost> c = inner_->Price(call);
    if (!c || call.resident_input_bytes <= 0 || call.resident_input_bytes > l2_bytes_) return c;
    auto it = factors_.find(KernelKindName(call.kind));
    if (it == factors_.end()) return c;
    c->time_s *= it->second;
    c->p10_s *= it->second;
    c->p90_s *= it->second;
    if (c->heuristic_time_s > 0) c->heuristic_time_s *= it->second;
    return c;
  }

 private:
  std::shared_ptr<const KernelPricer> inner_;
  std::map<std::string, double> factors_;
  double l2_bytes_;
};

class ChainPricer : public KernelPricer {
 public:
  std::vector<std::shared_ptr<const KernelPricer>> chain;
  std::optional<CallCost> Price(const KernelCall& call) const override {
    for (const auto& p : chain) {
      if (auto c = p->Price(call)) return c;
    }
    return std::nullopt;
  }
};

// The models stored in the `fits` table; none (so they are refitted from the
// records) when there are none or they are of another format version.
Result<std::optional<FittedModels>> LoadStoredFit(const PerfDb& db, const std::string& gpu,
                                                  std::vector<std::string>* notes) {
  auto fit = db.LoadFit(gpu);
  if (fit.ok() || fit.status().code() != StatusCode::kUnsupported) return fit;
  notes->push_back(fit.status().message() + "; fitted the models from its records instead");
  return std::optional<FittedModels>();
}

// `inner` with the machine's L2-resident factors.
std::shared_ptr<const KernelPricer> Wrapped(std::shared_ptr<const KernelPricer> inner,
                                            const Machine& machine) {
  if (!machine.calibration.l2_resident_factor.empty()) {
    inner = std::make_shared<L2ResidentPricer>(inner, machine.calibration.l2_resident_factor,
                                               machine.device.l2_bytes);
  }
  return inner;
}

}  // namespace

std::shared_ptr<const KernelPricer> DatabasePricers::All() const {
  if (!fitted) return measured;
  auto chain = std::make_shared<ChainPricer>();
  chain->chain = {measured, fitted, stand_in};
  return chain;
}

Result<DatabasePricers> BuildDatabasePricers(const Machine& machine,
                                             std::vector<std::string>* notes) {
  const std::string& path = machine.calibration.perf_db;
  if (path.empty()) return DatabasePricers{};
  if (!std::filesystem::exists(path)) {
    notes->push_back("performance database " + path + " not found: roofline pricing");
    return DatabasePricers{};
  }
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  if (!db.ok()) return db.status().WithContext(machine.source_path + ": calibration.perf_db");
  std::string gpu = machine.calibration.db_gpu.empty() ? machine.device.name
                                                        : machine.calibration.db_gpu;
  DLSIM_ASSIGN_OR_RETURN(TimingTable table, db->LoadTimings(gpu));
  DLSIM_ASSIGN_OR_RETURN(auto counted, db->LoadKernelCounts(gpu));
  DatabasePricers out;
  if (!counted.empty()) {
    out.counts = std::make_shared<const KernelCounts>(std::move(counted), machine.device.sm_count);
  }
  out.measured = Wrapped(std::make_shared<MeasuredPricer>(std::move(table), machine.device),
                         machine);
  DLSIM_ASSIGN_OR_RETURN(std::optional<FittedModels> fit, LoadStoredFit(*db, gpu, notes));
  if (!fit) {
    DLSIM_ASSIGN_OR_RETURN(auto records, db->RecordsOfGpu(gpu));
    auto fitted = FitModels(records, machine.device.sm_count);
    if (fitted.ok()) fit = std::move(fitted).value();
  }
  if (fit) {
    auto models = std::make_shared<const FittedModels>(std::move(*fit));
    out.fitted = Wrapped(std::make_shared<FittedPricer>(models, machine.device, FitMath::kExact),
                         machine);
    out.stand_in = Wrapped(
        std::make_shared<FittedPricer>(models, machine.device, FitMath::kStandIn), machine);
  }
  return out;
}

}  // namespace dlsim
