#include "dlsim/cost/roofline.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernel/tiles.h"

namespace dlsim {
namespace {

DeviceSpec Device() {
  DeviceSpec d;
  d.name = "test";
  d.sm_count = 100;
  d.peak_flops.fp32_vector = 50e12;
  d.peak_flops.fp16_matrix = 1000e12;
  d.measured_memory_bw_bytes_per_s = 2e12;
  return d;
}

KernelCall Gemm(int64_t m, int64_t n, int64_t k, MathMode math) {
  KernelCall c;
  c.kind = KernelKind::kGemm;
  c.math = math;
  c.AddParam("m", m);
  c.AddParam("n", n);
  c.AddParam("k", k);
  c.flops = 2.0 * m * n * k;
  c.bytes_read = 2.0 * (m * k + k * n);
  c.bytes_written = 2.0 * m * n;
  return c;
}

TEST(RooflineTest, LargeGemmIsComputeBoundAtMatrixPeak) {
  KernelCall c = Gemm(12800, 12800, 4096, MathMode::kFp16);  // 10000 tiles = 100 waves
  RooflineParams p;
  auto b = RooflineTime(c, Device(), p);
  EXPECT_EQ(b.bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(b.compute_s, c.flops / (1000e12 * p.matrix_efficiency));
  EXPECT_DOUBLE_EQ(b.time_s, b.compute_s + p.kernel_floor_s);
}

TEST(RooflineTest, RecurrentCallRunsItsStepsInSequence) {
  KernelCall c;
  c.kind = KernelKind::kRnnFwd;
  c.math = MathMode::kFp16;
  c.AddParam("seq", 64);
  c.AddParam("layers", 2);
  c.flops = 1e6;  // tiny: the steps, not the FLOPs, set the time
  RooflineParams p;
  auto b = RooflineTime(c, Device(), p);
  EXPECT_EQ(b.bound, Bound::kLatency);
  EXPECT_DOUBLE_EQ(b.floor_s, 65 * p.rnn_step_floor_s);  // seq + layers - 1 steps
}

KernelCall ForeachAdd(int64_t params, int64_t chunk) {
  KernelCall c;
  c.kind = KernelKind::kOptimizer;
  c.AddParam("params", params);
  if (chunk > 0) c.AddParam("chunk", chunk);
  c.flops = 2.0 * params;
  c.bytes_read = 8.0 * params;
  c.bytes_written = 4.0 * params;
  return c;
}

TEST(RooflineTest, ForeachLaunchOverSmallTensorsLastsItsLargestChunksWalk) {
  RooflineParams p;
  // 40,000 elements in the largest tensor: 20 passes of 2,048; 480 KB move in 0.27 us.
  auto small = RooflineTime(ForeachAdd(100000, 40000), Device(), p);
  EXPECT_DOUBLE_EQ(small.walk_s, 20 * p.foreach_pass_s);
  EXPECT_DOUBLE_EQ(small.time_s, 20 * p.foreach_pass_s + p.kernel_floor_s);
  EXPECT_EQ(small.bound, Bound::kLatency);
  // 50 M elements: 600 MB at 1.8 TB/s (300 us) outlast a full chunk's 32 passes.
  auto large = RooflineTime(ForeachAdd(50000000, 65536), Device(), p);
  EXPECT_DOUBLE_EQ(large.walk_s, 32 * p.foreach_pass_s);
  EXPECT_DOUBLE_EQ(large.time_s, large.memory_s + p.kernel_floor_s);
  EXPECT_EQ(large.bound, Bound::kMemory);
  // Without a chunk in the key, bytes alone.
  EXPECT_DOUBLE_EQ(RooflineTime(ForeachAdd(100000, 0), Device(), p).walk_s, 0);
}

// An attention call's tiles are 128 query rows of each (batch, head).
TEST(RooflineTest, AttentionWavesCountQueryBlocks) {
  KernelCall c;
  c.kind = KernelKind::kAttentionFwd;
  c.math = MathMode::kFp16;
  c.AddParam("batch", 1);
  c.AddParam("heads", 12);
  c.AddParam("seq_q", 256);
  c.AddParam("head_dim", 64);
  EXPECT_DOUBLE_EQ(WaveEfficiency(CallOutputTiles(c), 100), 24.0 / 100);  // 12 heads x 2 blocks in one wave
}

TEST(RooflineTest, WaveQuantisationPenalisesPartialWaves) {
  // 101 tiles on 100 SMs: 2 waves, 101 of 200 slots busy.
  KernelCall c = Gemm(128 * 101, 128, 64, MathMode::kFp16);
  EXPECT_DOUBLE_EQ(WaveEfficiency(CallOutputTiles(c), 100), 101.0 / 200.0);
}

TEST(RooflineTest, ElementwiseIsMemoryBound) {
  KernelCall c;
  c.kind = KernelKind::kElementwise;
  c.bytes_read = 8e9;
  c.bytes_written = 4e9;
  c.flops = 1e9;
  RooflineParams p;
  auto b = RooflineTime(c, Device(), p);
  EXPECT_EQ(b.bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(b.memory_s, 12e9 / (2e12 * p.memory_efficiency));
}

// Group norm of x [2, 64, 1000] fp32 in 8 groups: its forward's statistics
// pass runs 16 blocks on 100 SMs, so reading x once (512,000 bytes) takes
// 100 / 16 times as long; with 200 groups of one sample (2 waves, full) the
// pass runs at the full bandwidth.
TEST(RooflineTest, AGroupNormWithFewRowsReadsAtTheBusySmsShare) {
  KernelCall c;
  c.kind = KernelKind::kGroupNormFwd;
  c.AddParam("n", 2);
  c.AddParam("c", 64);
  c.AddParam("groups", 8);
  c.AddParam("hw", 1000);
  c.bytes_read = 512000;
  c.bytes_written = 512000;
  RooflineParams p;
  const double bw = 2e12 * p.memory_efficiency;
  EXPECT_DOUBLE_EQ(RooflineTime(c, Device(), p).memory_s, (1024000 + 512000 * (100.0 / 16 - 1)) / bw);
  KernelCall many = c;
  many.params.clear();
  many.AddParam("n", 1);
  many.AddParam("c", 200);
  many.AddParam("groups", 200);
  many.AddParam("hw", 640);
  EXPECT_DOUBLE_EQ(RooflineTime(many, Device(), p).memory_s, 1024000 / bw);
}

// A 1e9-byte elementwise call measured at 1 ms (+ floor) on a reference GPU
// (L2 1e9 B), priced on `target` (by default: twice the bandwidth, the same
// L2); `resident` of the bytes were just written by the kernel before.
DeviceSpec ReferenceWithL2() {
  DeviceSpec d = Device();
  d.l2_bytes = 1e9;
  return d;
}

DeviceSpec TwiceTheBandwidth() {
  DeviceSpec d = ReferenceWithL2();
  d.measured_memory_bw_bytes_per_s = 4e12;
  return d;
}

std::optional<CallCost> ScaledElementwise(double resident, const DeviceSpec& target = TwiceTheBandwidth(),
                                          double flops = 0,
                                          const DeviceSpec& reference = ReferenceWithL2(),
                                          const IssueCostTable& issue = IssueCostTable()) {
  class Fixed : public KernelPricer {
   public:
    std::optional<CallCost> Price(const KernelCall&) const override {
      CallCost c;
      c.time_s = c.p10_s = c.p90_s = 1e-3 + RooflineParams{}.kernel_floor_s;
      c.source = CostSource::kMeasured;
      return c;
    }
  };
  ScaledPricer scaled(std::make_shared<Fixed>(), reference, target, RooflineParams{}, issue);
  KernelCall c;
  c.kind = KernelKind::kElementwise;
  c.dtype = DType::kFloat16;
  c.AddParam("op", "gelu");
  c.AddParam("elems", 100000000);
  c.AddParam("arity", 1);
  c.bytes_read = 1e9;
  c.flops = flops;
  c.resident_input_bytes = resident;
  return scaled.Price(c);
}

const double kFloor = RooflineParams{}.kernel_floor_s;
const double kMemEff = RooflineParams{}.memory_efficiency;

TEST(ScaledPricerTest, MemoryBoundTimeScalesWithBandwidth) {
  auto cost = ScaledElementwise(0);
  ASSERT_TRUE(cost.has_value());
  EXPECT_EQ(cost->source, CostSource::kScaled);
  // The roofline explains 1e9 B / (2e12 B/s * 0.9) of the reference time;
  // that part halves at twice the bandwidth, the rest stays.
  const double explained = 1e9 / (2e12 * kMemEff);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - explained) + explained / 2, 1e-12);
}

TEST(ScaledPricerTest, InputResidentInL2DoesNotScaleWithBandwidth) {
  auto cost = ScaledElementwise(0.6e9);  // only 0.4e9 B come from device memory
  ASSERT_TRUE(cost.has_value());
  EXPECT_EQ(cost->source, CostSource::kScaled);
  // Only the device-memory bytes' share of the time halves.
  const double explained = 0.4e9 / (2e12 * kMemEff);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - explained) + explained / 2, 1e-12);
}

TEST(ScaledPricerTest, SmallerL2KeepsLessOfTheInput) {
  DeviceSpec target = TwiceTheBandwidth();
  target.l2_bytes = 0.5e9;  // half the reference's L2: half the resident input stays
  auto cost = ScaledElementwise(0.6e9, target);
  ASSERT_TRUE(cost.has_value());
  // Reference: 0.4e9 B from memory; target: 1e9 - 0.3e9 = 0.7e9 B.
  const double explained = 0.4e9 / (2e12 * kMemEff);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - explained) + 0.7e9 / (4e12 * kMemEff), 1e-12);
}

TEST(ScaledPricerTest, NoMoreInputIsResidentThanTheL2Holds) {
  // The whole 1e9-byte input was just written, but both L2s hold 0.25e9 B:
  // 0.75e9 B come from device memory on each GPU.
  DeviceSpec reference = ReferenceWithL2();
  reference.l2_bytes = 0.25e9;
  DeviceSpec target = TwiceTheBandwidth();
  target.l2_bytes = 0.25e9;
  auto cost = ScaledElementwise(1e9, target, 0, reference);
  ASSERT_TRUE(cost.has_value());
  const double explained = 0.75e9 / (2e12 * kMemEff);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - explained) + explained / 2, 1e-12);
}

TEST(ScaledPricerTest, CallThatCrossesTheRidgeTakesTheTargetsComputeTime) {
  DeviceSpec target = TwiceTheBandwidth();
  target.peak_flops.fp32_vector = 10e12;  // a fifth of the reference's
  // 1e10 FLOPs: 0.33 ms of compute against 0.56 ms of memory on the
  // reference (memory-bound), 1.67 ms against 0.28 ms on the target.
  auto cost = ScaledElementwise(0, target, 1e10);
  ASSERT_TRUE(cost.has_value());
  EXPECT_EQ(cost->bound, Bound::kCompute);
  const double explained = 1e9 / (2e12 * kMemEff);
  const double target_compute = 1e10 / (10e12 * RooflineParams{}.vector_efficiency);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - explained) + target_compute, 1e-12);
}

// 1e8 elements at 5 ps each: 0.5 ms of issue time on the reference.
IssueCostTable GeluIssue() {
  IssueCostTable t;
  t.Add("elementwise", "gelu", 1, 0, "fp16", 5.0);
  return t;
}

double Overlap(double issue_s, double memory_s) {
  return std::cbrt(issue_s * issue_s * issue_s + memory_s * memory_s * memory_s);
}

TEST(ScaledPricerTest, IssueTimeOverlapsMemoryTimeAndDoesNotScaleWithBandwidth) {
  auto cost = ScaledElementwise(0, TwiceTheBandwidth(), 0, ReferenceWithL2(), GeluIssue());
  ASSERT_TRUE(cost.has_value());
  // Bound terms: issue 0.5 ms with memory 0.556 ms on the reference, 0.278 ms
  // on the target; the explained time scales by their ratio, the rest stays.
  const double ref_bound = Overlap(5e-4, 1e9 / (2e12 * kMemEff));
  const double tgt_bound = Overlap(5e-4, 1e9 / (4e12 * kMemEff));
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - ref_bound) + tgt_bound, 1e-12);
  // Without the issue time the same call gains far more from the bandwidth.
  EXPECT_LT(ScaledElementwise(0)->time_s, cost->time_s - 1e-4);
}

TEST(ScaledPricerTest, IssueTimeScalesWithSmCountTimesClock) {
  DeviceSpec reference = ReferenceWithL2();
  reference.boost_clock_mhz = 1000;
  DeviceSpec target = reference;          // the reference's memory,
  target.sm_count = 150;                  // 1.5x its SMs
  target.sustained_clock_mhz = 800;       // at 0.8x its clock: issue / 1.2,
  target.peak_flops.fp32_vector *= 4;     // whatever its FP32 peak
  auto cost = ScaledElementwise(0, target, 0, reference, GeluIssue());
  ASSERT_TRUE(cost.has_value());
  const double memory_s = 1e9 / (2e12 * kMemEff);
  const double ref_bound = Overlap(5e-4, memory_s);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - ref_bound) + Overlap(5e-4 / 1.2, memory_s), 1e-12);
}

TEST(ScaledPricerTest, IssueTimeFallsBackToTheVectorPeakWithoutAClock) {
  DeviceSpec target = ReferenceWithL2();  // no clock given on either GPU
  target.peak_flops.fp32_vector *= 2;
  auto cost = ScaledElementwise(0, target, 0, ReferenceWithL2(), GeluIssue());
  ASSERT_TRUE(cost.has_value());
  const double memory_s = 1e9 / (2e12 * kMemEff);
  const double ref_bound = Overlap(5e-4, memory_s);
  EXPECT_NEAR(cost->time_s, kFloor + (1e-3 - ref_bound) + Overlap(2.5e-4, memory_s), 1e-12);
}

// An FP32 GEMM (vector units) scales by what each GPU sustains: the target's
// FP32 peak at its sustained clock and at its 64-lane SM's GEMM share
// relative to the reference's (achievable.h; the reference gives no clock:
// lanes unknown, the 128-lane share).
TEST(ScaledPricerTest, Fp32GemmScalesWithTheSustainedClockAndTheLaneShare) {
  const double extra_s = 1e-4;  // reference time the roofline does not explain
  const KernelCall c = Gemm(12800, 12800, 4096, MathMode::kFp32);
  const DeviceSpec reference = Device();
  const double ref_compute = RooflineTime(c, reference, RooflineParams{}).compute_s;
  class Fixed : public KernelPricer {
   public:
    explicit Fixed(double t) : t_(t) {}
    std::optional<CallCost> Price(const KernelCall&) const override {
      CallCost cost;
      cost.time_s = cost.p10_s = cost.p90_s = t_;
      return cost;
    }
    double t_;
  };
  const double ref_time = kFloor + ref_compute + extra_s;
  DeviceSpec target = Device();
  target.boost_clock_mhz = 1000;
  target.peak_flops.fp32_vector = 12.8e12;  // 12.8e12 / (2 x 100 SMs x 1e9) = 64 lanes
  target.sustained_clock_mhz = 500;
  ScaledPricer scaled(std::make_shared<Fixed>(ref_time), reference, target, RooflineParams{},
                      IssueCostTable());
  auto cost = scaled.Price(c);
  ASSERT_TRUE(cost.has_value());
  const double ratio = 50e12 / (12.8e12 * 0.5 * 0.818 / 0.671);
  EXPECT_NEAR(cost->time_s, kFloor + extra_s + ref_compute * ratio, 1e-12 * cost->time_s);
  EXPECT_EQ(cost->bound, Bound::kCompute);
}

// A target given by its datasheet bandwidth alone reaches the reference's
// achieved share of it; a target with a measured figure keeps its own.
TEST(ScaledPricerTest, DatasheetOnlyTargetReachesTheReferencesShare) {
  DeviceSpec reference = Device();
  reference.memory_bw_bytes_per_s = 2.5e12;  // measured 2e12: a share of 0.8
  DeviceSpec target;
  target.memory_bw_bytes_per_s = 1.5e12;
  EXPECT_DOUBLE_EQ(WithAchievedMemoryBw(target, reference).EffectiveMemoryBw(), 1.2e12);
  target.measured_memory_bw_bytes_per_s = 1.4e12;
  EXPECT_DOUBLE_EQ(WithAchievedMemoryBw(target, reference).EffectiveMemoryBw(), 1.4e12);
  target.measured_memory_bw_bytes_per_s = 0;
  reference.memory_bw_bytes_per_s = 0;  // no datasheet figure: no share to take
  EXPECT_DOUBLE_EQ(WithAchievedMemoryBw(target, reference).EffectiveMemoryBw(), 1.5e12);
}

}  // namespace
}  // namespace dlsim
