#include "dlsim/cost/roofline.h"

#include <algorithm>
#include <cmath>

#include "dlsim/machine/achievable.h"
#include "kernel/tiles.h"

namespace dlsim {
namespace {

// Elements a multi_tensor_apply block handles a pass: 512 threads x 4
// (PyTorch's kBlockSize and kILP).
constexpr double kForeachPassElements = 512 * 4;

// Share of the input a kernel reads straight after the previous kernel wrote
// it that is still in the target's L2, relative to the reference GPU (whose
// cold-L2 database times the L2-resident factors were fitted for): all of it
// when the target's L2 is at least as large (or either size is unknown),
// else in proportion to the L2 sizes.
double ResidentShare(const DeviceSpec& reference_device, const DeviceSpec& target) {
  if (reference_device.l2_bytes <= 0 || target.l2_bytes <= 0) return 1.0;
  return std::min(1.0, target.l2_bytes / reference_device.l2_bytes);
}

// `bytes` of recently written data, at most the device's L2 (when known).
double CappedByL2(double bytes, const DeviceSpec& device) {
  return device.l2_bytes > 0 ? std::min(bytes, device.l2_bytes) : bytes;
}

// `call` with its device-memory reads only: `resident` bytes come from L2.
KernelCall DeviceMemoryTraffic(const KernelCall& call, double resident) {
  KernelCall dram = call;
  dram.bytes_read = std::max(0.0, call.bytes_read - resident);
  return dram;
}

}  // namespace

double PeakFlopsFor(const KernelCall& call, const DeviceSpec& device) {
  const PeakFlops& pk = device.peak_flops;
  if (IsComputeKind(call.kind)) {
    double matrix = 0;
    switch (call.math) {
      case MathMode::kTf32: matrix = pk.tf32_matrix; break;
      case MathMode::kFp16: matrix = pk.fp16_matrix; break;
      case MathMode::kBf16: matrix = pk.bf16_matrix; break;
      case MathMode::kFp32: matrix = 0; break;
    }
    if (matrix > 0) return matrix;
    if (call.math == MathMode::kFp16 && pk.fp16_vector > 0) return pk.fp16_vector;
  }
  return pk.fp32_vector;
}

RooflineBreakdown RooflineTime(const KernelCall& call, const DeviceSpec& device,
                               const RooflineParams& params) {
  RooflineBreakdown b;
  const double peak = PeakFlopsFor(call, device);
  const double eff = IsComputeKind(call.kind) &&
                             PeakFlopsFor(call, device) != device.peak_flops.fp32_vector
                         ? params.matrix_efficiency
                         : params.vector_efficiency;
  const double wave = IsComputeKind(call.kind) ? WaveEfficiency(CallOutputTiles(call), device.sm_count) : 1.0;
  if (peak > 0) b.compute_s = call.flops / (peak * eff * wave);
  const double bw = device.EffectiveMemoryBw() * params.memory_efficiency;
  // a row pass with fewer blocks than SMs reads at the busy SMs' share
  const RowPass rows = CallRowPass(call);
  const double row_extra = rows.bytes * (1 / WaveEfficiency(rows.blocks, device.sm_count) - 1);
  if (bw > 0) b.memory_s = (call.bytes() + row_extra) / bw;
  b.floor_s = params.kernel_floor_s;
  if (IsRnnKind(call.kind)) {
    const double steps = static_cast<double>(call.IntParam("seq", 1) + call.IntParam("layers", 1) - 1);
    b.floor_s = std::max(b.floor_s, steps * params.rnn_step_floor_s);
  }
  if (call.kind == KernelKind::kOptimizer) {
    const double chunk = static_cast<double>(call.IntParam("chunk", 0));
    b.walk_s = std::ceil(chunk / kForeachPassElements) * params.foreach_pass_s;
  }
  b.time_s = std::max({b.compute_s, b.memory_s, b.walk_s}) + b.floor_s;
  if (std::max(b.compute_s, b.memory_s) < std::max(b.floor_s, b.walk_s)) {
    b.bound = Bound::kLatency;
  } else {
    b.bound = b.compute_s >= b.memory_s ? Bound::kCompute : Bound::kMemory;
  }
  return b;
}

CallCost RooflineCost(const KernelCall& call, const DeviceSpec& device, const RooflineParams& params) {
  RooflineBreakdown b = RooflineTime(call, device, params);
  CallCost cost;
  cost.time_s = cost.p10_s = cost.p90_s = b.time_s;
  cost.source = CostSource::kRoofline;
  cost.bound = b.bound;
  return cost;
}

namespace {

// The bound term of a call: the slower of compute and memory, or, when its
// issue time is known, issue and memory overlapping as kIssueMemoryOverlapP
// says (compute from FLOPs stays a floor under the issue time).
double BoundTerm(const RooflineBreakdown& b, double issue_s) {
  if (issue_s <= 0) return std::max(b.compute_s, b.memory_s);
  const double c = std::max(b.compute_s, issue_s);
  const double p = kIssueMemoryOverlapP;
  return std::pow(std::pow(c, p) + std::pow(b.memory_s, p), 1.0 / p);
}

// Instructions issue at the same rate per SM per clock on every GPU since
// Volta (four warp schedulers), so issue time scales with SM count x clock
// (the sustained clock where given). Not with the FP32 peak: Hopper doubled
// its FP32 lanes per SM, which would make an A100's issue time twice what
// its schedulers allow. The FP32 peak stands in where either is unknown.
double IssueRate(const DeviceSpec& d) {
  const double clock = d.sustained_clock_mhz > 0 ? d.sustained_clock_mhz : d.boost_clock_mhz;
  return d.sm_count * clock;
}

double IssueOnTarget(double issue_s, const DeviceSpec& reference_device, const DeviceSpec& target) {
  double ref = IssueRate(reference_device), tgt = IssueRate(target);
  if (ref <= 0 || tgt <= 0) {
    ref = reference_device.peak_flops.fp32_vector;
    tgt = target.peak_flops.fp32_vector;
  }
  return ref > 0 && tgt > 0 ? issue_s * ref / tgt : issue_s;
}

}  // namespace

CallCost ScaleCost(const KernelCall& call, const CallCost& ref, const DeviceSpec& reference_device,
                   const DeviceSpec& target, const RooflineParams& params, const IssueCostTable& issue) {
  // Input still in L2 is read at L2 speed, which the device-memory bandwidth
  // ratio does not describe: only device-memory bytes scale. A target with a
  // smaller L2 keeps less of that input and reads the rest from its memory.
  // No more of it than the L2 holds: of a tensor larger than the L2, only
  // the last-written L2-full is still there.
  // Compute scales by what each GPU sustains, not by its datasheet peak: its
  // clock under the power limit and, for FP32 GEMMs on the vector units, its
  // SM architecture's achievable share (achievable.h).
  const double resident = CappedByL2(call.resident_input_bytes, reference_device);
  RooflineBreakdown rb = RooflineTime(DeviceMemoryTraffic(call, resident),
                                      AchievableDevice(reference_device), params);
  RooflineBreakdown tb = RooflineTime(
      DeviceMemoryTraffic(call, CappedByL2(resident * ResidentShare(reference_device, target), target)),
      AchievableDevice(target), params);
  // The reference time above the kernel floor = what the roofline explains
  // (its bound term) + the rest (latency, occupancy, synchronisation). Only
  // the explained part scales, by the ratio of the target's bound term (a
  // call may change sides of the ridge) to the reference's; the rest is
  // taken to be the same on both GPUs. A pointwise or row kernel whose issue
  // time was measured on the reference has that time in its bound term.
  const double issue_s = issue.IssueSeconds(call);
  const double ref_bound = BoundTerm(rb, issue_s);
  const double tgt_bound = BoundTerm(tb, IssueOnTarget(issue_s, reference_device, target));
  const double bound_ratio = ref_bound > 0 ? tgt_bound / ref_bound : 1.0;
  auto scale = [&](double t) {
    const double explained = std::min(std::max(t - rb.floor_s, 0.0), ref_bound);
    return t - explained + explained * bound_ratio;
  };
  CallCost cost = ref;
  cost.time_s = scale(ref.time_s);
  cost.p10_s = scale(ref.p10_s);
  cost.p90_s = scale(ref.p90_s);
  if (ref.heuristic_time_s > 0) cost.heuristic_time_s = scale(ref.heuristic_time_s);
  cost.source = CostSource::kScaled;
  cost.bound = tb.bound;
  return cost;
}

DeviceSpec WithAchievedMemoryBw(const DeviceSpec& target, const DeviceSpec& reference) {
  DeviceSpec out = target;
  if (target.measured_memory_bw_bytes_per_s > 0 || reference.measured_memory_bw_bytes_per_s <= 0 ||
      reference.memory_bw_bytes_per_s <= 0) {
    return out;
  }
  out.measured_memory_bw_bytes_per_s = target.memory_bw_bytes_per_s *
                                       reference.measured_memory_bw_bytes_per_s /
                                       reference.memory_bw_bytes_per_s;
  return out;
}

std::optional<CallCost> RooflinePricer::Price(const KernelCall& call) const {
  return RooflineCost(call, device_, params_);
}

std::optional<CallCost> ScaledPricer::Price(const KernelCall& call) const {
  std::optional<CallCost> ref = reference_->Price(call);
  if (!ref) return std::nullopt;
  return ScaleCost(call, *ref, ref_, target_, params_, issue_);
}

}  // namespace dlsim
