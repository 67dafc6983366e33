// Pricing kernel calls. A chain of sources, first hit wins (docs/architecture):
// measured (exact key in this GPU's database) -> fitted (per-op model fitted
// on this GPU) -> scaled (priced on a calibrated reference GPU and scaled to
// this machine's specs) -> roofline (specs only).
#ifndef DLSIM_COST_COST_MODEL_H_
#define DLSIM_COST_COST_MODEL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

class KernelCounts;

enum class CostSource { kMeasured, kFitted, kScaled, kRoofline };
const char* CostSourceName(CostSource source);  // "measured", ...

enum class Bound { kCompute, kMemory, kLatency };
const char* BoundName(Bound bound);  // "compute", "memory", "latency"

struct CallCost {
  double time_s = 0;
  double p10_s = 0;  // calibration spread (equal to time_s for roofline)
  double p90_s = 0;
  CostSource source = CostSource::kRoofline;
  Bound bound = Bound::kLatency;
  std::string algo;               // algorithm priced (measured convs)
  double heuristic_time_s = -1;   // time of cuDNN's heuristic pick, if known
  std::string heuristic_algo;     // the heuristic's pick, "" if unknown
  // GPU kernels the call launches, whichever source priced it: counted for
  // its key in this GPU's database, else in the scale_from reference's (or
  // the nearest counted key's count, include/dlsim/perfdb/kernel_counts.h);
  // 1 when neither counted a key of its kind.
  int64_t kernels = 1;
};

// One pricing source. Price returns nullopt when it cannot price the call.
class KernelPricer {
 public:
  virtual ~KernelPricer() = default;
  virtual std::optional<CallCost> Price(const KernelCall& call) const = 0;
};

class CostModel {
 public:
  // Builds the chain for `machine`: its database when the machine names one
  // and its `calibration.scale_from` reference's, scaled, interleaved
  // (measured, fitted, stand-in; cost_model.cc), and the roofline last. A
  // named database that cannot be opened is an error.
  static Result<CostModel> ForMachine(const Machine& machine);
  // A roofline-only model (no database).
  static CostModel RooflineOnly(const Machine& machine);

  CallCost Price(const KernelCall& call) const;
  const Machine& machine() const { return *machine_; }
  const std::vector<std::string>& notes() const { return notes_; }

  void AddPricer(std::shared_ptr<const KernelPricer> pricer) {
    chain_.insert(chain_.end() - 1, std::move(pricer));
  }
  // Kernel counts to consult after those added before (null is skipped).
  void AddKernelCounts(std::shared_ptr<const KernelCounts> counts);

 private:
  std::shared_ptr<const Machine> machine_;
  std::vector<std::shared_ptr<const KernelPricer>> chain_;  // roofline last
  std::vector<std::shared_ptr<const KernelCounts>> counts_;  // this GPU's, then the reference's
  std::vector<std::string> notes_;
};

}  // namespace dlsim

#endif  // DLSIM_COST_COST_MODEL_H_
