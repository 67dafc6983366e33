// The roofline model with achievable-efficiency factors: a kernel takes the
// longer of its compute time at an achievable fraction of the unit's peak and
// its memory time at an achievable fraction of the measured bandwidth, plus a
// fixed per-kernel floor. The factors and where they come from are in
// docs/cost-model.md.
#ifndef DLSIM_COST_ROOFLINE_H_
#define DLSIM_COST_ROOFLINE_H_

#include <optional>

#include "dlsim/cost/cost_model.h"
#include "dlsim/cost/issue_cost.h"

namespace dlsim {

struct RooflineParams {
  double matrix_efficiency = 0.70;  // of dense tensor-core peak (GEMM, conv)
  double vector_efficiency = 0.60;  // of vector (CUDA-core) peak
  double memory_efficiency = 0.90;  // of measured copy bandwidth
  // Smallest kernel back to back in a CUDA graph: the H100's tiniest measured
  // kernels take 1.2-1.5 us in graph replay (calibration/h100.sqlite).
  double kernel_floor_s = 1.5e-6;
  // A recurrent call runs its time steps one after another (layers in a
  // wavefront: seq + layers - 1 steps), each at least a GEMM and a pointwise
  // kernel: single-layer LSTM/GRU at batch 1 take 0.31-0.52 ms for 64 steps
  // on the H100 (calibration/h100.sqlite), 5-8 us per step; 5 us is taken.
  double rnn_step_floor_s = 5e-6;
  // A block of PyTorch's foreach optimizer kernels (multi_tensor_apply)
  // walks its chunk in passes of 512 threads x 4 elements, each a round trip
  // to memory, so a launch over small tensors lasts its largest chunk's walk:
  // 0.424 us a pass, the median of 260 optimizer kernels of 19 calibration-
  // side models under 1e6 parameters (H100 training traces,
  // bench/corpus/fit_foreach.py).
  double foreach_pass_s = 0.424e-6;
};

// Peak FLOP/s available to `call` on `device` (matrix units for GEMM-like
// kinds in tf32/fp16/bf16 math, vector units otherwise).
double PeakFlopsFor(const KernelCall& call, const DeviceSpec& device);

struct RooflineBreakdown {
  double compute_s = 0;
  double memory_s = 0;
  double walk_s = 0;  // a block's serial walk over its chunk (foreach optimizer kernels)
  double floor_s = 0;
  double time_s = 0;
  Bound bound = Bound::kLatency;
};
RooflineBreakdown RooflineTime(const KernelCall& call, const DeviceSpec& device,
                               const RooflineParams& params);

// The roofline's price of `call` on `device` (source roofline).
CallCost RooflineCost(const KernelCall& call, const DeviceSpec& device, const RooflineParams& params);

// How much of a kernel's issue time and its memory time overlap: the bound
// term of a call whose issue time is known is (issue^p + memory^p)^(1/p),
// not the larger of the two. p = 3 describes the H100's cold times of 416
// pointwise and row kernels of 64 MB and more best (tools/fit_issue_costs.py
// --db calibration/h100.sqlite: spread 0.032 in log time, against 0.038 for
// the larger of the two); docs/cost-model.md.
inline constexpr double kIssueMemoryOverlapP = 3.0;

// `reference` (a cost on `reference_device`) scaled to `target`, as
// ScaledPricer does (source scaled). `issue` holds the reference GPU's
// measured issue costs (an empty table: none).
CallCost ScaleCost(const KernelCall& call, const CallCost& reference, const DeviceSpec& reference_device,
                   const DeviceSpec& target, const RooflineParams& params, const IssueCostTable& issue);

// `target` with a measured memory bandwidth when its file gives only the
// datasheet figure and the reference's gives both: the reference's achieved
// share of its datasheet figure. Scaling then compares achieved bandwidth
// with achieved bandwidth, not the reference's achieved with the target's
// peak (the H100 and the H200 both reach 0.896 of their datasheet figures).
DeviceSpec WithAchievedMemoryBw(const DeviceSpec& target, const DeviceSpec& reference);

class RooflinePricer : public KernelPricer {
 public:
  RooflinePricer(const DeviceSpec& device, RooflineParams params)
      : device_(device), params_(params) {}
  std::optional<CallCost> Price(const KernelCall& call) const override;

 private:
  DeviceSpec device_;
  RooflineParams params_;
};

// Prices on a reference GPU (through `reference`, a chain of measured/fitted
// sources) and scales to `target`: the time above the kernel floor is split
// into compute- and memory-bound shares by the reference roofline, and each
// share scales by the ratio of the matching peaks (with SM-wave quantisation
// for the compute share). `issue`: the reference's measured issue costs.
class ScaledPricer : public KernelPricer {
 public:
  ScaledPricer(std::shared_ptr<const KernelPricer> reference, const DeviceSpec& reference_device,
               const DeviceSpec& target, RooflineParams params, IssueCostTable issue)
      : reference_(std::move(reference)), ref_(reference_device), target_(target),
        params_(params), issue_(std::move(issue)) {}
  std::optional<CallCost> Price(const KernelCall& call) const override;

 private:
  std::shared_ptr<const KernelPricer> reference_;
  DeviceSpec ref_;
  DeviceSpec target_;
  RooflineParams params_;
  IssueCostTable issue_;
};

}  // namespace dlsim

#endif  // DLSIM_COST_ROOFLINE_H_
