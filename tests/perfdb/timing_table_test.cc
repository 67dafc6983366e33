#include "dlsim/perfdb/timing_table.h"

#include <gtest/gtest.h>

#include "dlsim/perfdb/perf_db.h"
#include "perfdb_test_util.h"

namespace dlsim {
namespace {

using testing::Fixture;
using testing::TempPath;

const char kGpu[] = "NVIDIA H100 80GB HBM3";
const char kConv[] =
    "conv_fwd n=16 c=64 h=56 w=56 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
    "dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw";

PerfDb ImportedDb(const std::string& path) {
  auto db = PerfDb::Open(path, OpenMode::kCreate);
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->ImportJsonl(Fixture("h100_a.jsonl")).ok());
  return std::move(db).value();
}

TEST(TimingTableTest, PicksFastestAlgoAndReportsHeuristic) {
  PerfDb db = ImportedDb(TempPath("a.db"));
  auto table = db.LoadTimings(kGpu);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->gpu_name(), kGpu);
  EXPECT_EQ(table->sm_count(), 132);
  EXPECT_EQ(table->size(), 3u);  // conv, gemm, elementwise
  const KeyTiming* t = table->Find(kConv);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->fastest_ms, 0.125);
  EXPECT_EQ(t->fastest_algo, "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED");
  EXPECT_TRUE(t->has_heuristic());
  EXPECT_EQ(t->heuristic_ms, 0.25);
  EXPECT_EQ(t->heuristic_algo, "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM");
  EXPECT_EQ(t->p10_ms, 0.1225);
  EXPECT_EQ(t->p90_ms, 0.13125);
  // The noisy (faster) and the unsupported algos are not counted.
  EXPECT_EQ(t->algo_count, 2);
  EXPECT_EQ(table->Find("gemm m=1 n=1 k=1 trans_a=0 trans_b=0 dtype=fp32 math=fp32 layout=-"),
            nullptr);
}

TEST(TimingTableTest, HeuristicUnknownWhenNoRecordIsMarked) {
  MeasurementRecord r;
  r.key = "copy op=transpose elems=100 dtype=fp32 math=fp32 layout=-";
  r.algo = "-";
  r.status = "ok";
  r.median_ms = 0.5;
  TimingTable table = TimingTable::FromRecords("X", 10, {r});
  const KeyTiming* t = table.Find(r.key);
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->has_heuristic());
  EXPECT_LT(t->heuristic_ms, 0);
  EXPECT_EQ(t->heuristic_algo, "");
}

TEST(TimingTableTest, UsesLatestSoftwareStackOnly) {
  PerfDb db = ImportedDb(TempPath("a.db"));
  auto records = db.RecordsOfKind(kGpu, KernelKind::kGemm);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1u);
  MeasurementRecord newer = records->front();
  newer.cudnn = "9.2.0";
  newer.cublas = "12.5.2";
  newer.median_ms = 0.0187;
  newer.time_utc = "2024-06-01T00:00:00Z";
  ASSERT_TRUE(db.ImportRecords({newer}).ok());
  auto stack = db.LatestStack(kGpu);
  ASSERT_TRUE(stack.ok());
  EXPECT_EQ(stack->cudnn, "9.2.0");
  auto stats = db.Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->stacks_per_gpu.at(kGpu), 2);
  auto table = db.LoadTimings(kGpu);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->size(), 1u);
  EXPECT_EQ(table->Find(newer.key)->fastest_ms, 0.0187);
  EXPECT_EQ(table->Find(kConv), nullptr);
}

TEST(TimingTableTest, RecordsOfKindReturnsEveryAlgo) {
  PerfDb db = ImportedDb(TempPath("a.db"));
  auto conv = db.RecordsOfKind(kGpu, KernelKind::kConvFwd);
  ASSERT_TRUE(conv.ok()) << conv.status().ToString();
  ASSERT_EQ(conv->size(), 4u);
  EXPECT_EQ((*conv)[0].algo, "CUDNN_CONVOLUTION_FWD_ALGO_FFT");  // sorted by algo
  EXPECT_EQ((*conv)[0].status, "unsupported");
  EXPECT_EQ(db.RecordsOfKind(kGpu, KernelKind::kLrnFwd)->size(), 0u);
  EXPECT_EQ(db.RecordsOfKind("A100", KernelKind::kGemm).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(db.LoadTimings("A100").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dlsim
