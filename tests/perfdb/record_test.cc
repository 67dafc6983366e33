#include "dlsim/perfdb/record.h"

#include <gtest/gtest.h>

#include <cmath>

#include "perfdb_test_util.h"

namespace dlsim {
namespace {

using testing::Fixture;

std::string FirstLine(const std::string& path) {
  std::string text = testing::ReadAll(path);
  return text.substr(0, text.find('\n'));
}

// Replaces `"field": <old value>` in a one-line record.
std::string Without(std::string line, const std::string& field) {
  size_t at = line.find("\"" + field + "\": ");
  size_t end = line.find(", \"", at);
  return line.erase(at, end + 2 - at);
}

TEST(RecordTest, ParsesGoodRecord) {
  auto r = ParseRecordJson(FirstLine(Fixture("h100_a.jsonl")));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->schema, 1);
  EXPECT_EQ(r->gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->gpu_cc, "9.0");
  EXPECT_EQ(r->gpu_sms, 132);
  EXPECT_EQ(r->gpu_clock_mhz, 1980);
  EXPECT_EQ(r->gpu_mem_bytes, 85520809984.0);
  EXPECT_EQ(r->cudnn, "9.1.0");
  EXPECT_EQ(r->algo, "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM");
  EXPECT_TRUE(r->heuristic);
  EXPECT_FALSE(r->fastest);
  EXPECT_EQ(r->median_ms, 0.25);
  EXPECT_EQ(r->p90_ms, 0.2625);
  EXPECT_EQ(r->reps, 100);
  EXPECT_EQ(r->status, "ok");
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels[0].ms, 0.25);
  EXPECT_EQ(r->time_utc, "2024-05-01T10:00:00Z");
}

TEST(RecordTest, MissingFieldIsNamed) {
  auto r = ParseRecordJson(Without(FirstLine(Fixture("h100_a.jsonl")), "gpu_sms"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_EQ(r.status().message(), "missing field 'gpu_sms'");
}

TEST(RecordTest, MissingTimeOnlyRequiredWhenOk) {
  std::string line = FirstLine(Fixture("h100_a.jsonl"));
  auto r = ParseRecordJson(Without(line, "median_ms"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "missing field 'median_ms'");
  // An unsupported record carries no times.
  std::string unsupported = Without(Without(line, "median_ms"), "p90_ms");
  unsupported.replace(unsupported.find("\"status\": \"ok\""), 14, "\"status\": \"unsupported\"");
  auto u = ParseRecordJson(unsupported);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_TRUE(std::isnan(u->median_ms));
  EXPECT_TRUE(std::isnan(u->p90_ms));
}

TEST(RecordTest, WrongTypeIsNamed) {
  std::string line = FirstLine(Fixture("h100_a.jsonl"));
  line.replace(line.find("\"reps\": 100"), 11, "\"reps\": \"100\"");
  auto r = ParseRecordJson(line);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "field 'reps' must be an integer, got string");

  std::string line2 = FirstLine(Fixture("h100_a.jsonl"));
  line2.replace(line2.find("\"heuristic\": true"), 17, "\"heuristic\": 1");
  auto r2 = ParseRecordJson(line2);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(), "field 'heuristic' must be true or false, got number");
}

TEST(RecordTest, BadKeyStatusAndSchemaRejected) {
  std::string line = FirstLine(Fixture("h100_a.jsonl"));
  std::string bad_key = line;
  bad_key.replace(bad_key.find("\"key\": \"conv_fwd"), 16, "\"key\": \"convolve");
  EXPECT_NE(ParseRecordJson(bad_key).status().message().find("field 'key'"), std::string::npos);
  std::string bad_status = line;
  bad_status.replace(bad_status.find("\"status\": \"ok\""), 14, "\"status\": \"fine\"");
  EXPECT_NE(ParseRecordJson(bad_status).status().message().find("field 'status'"),
            std::string::npos);
  std::string schema2 = line;
  schema2.replace(schema2.find("\"schema\": 1"), 11, "\"schema\": 2");
  EXPECT_EQ(ParseRecordJson(schema2).status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(ParseRecordJson("{not json").status().code(), StatusCode::kParseError);
  EXPECT_EQ(ParseRecordJson("[1, 2]").status().message(), "a record must be a JSON object");
}

// A counted record (calibrate/torch_kernel_count.py): no times, kernels
// named without "ms"; it round-trips and never carries times.
TEST(RecordTest, CountedRecordListsKernelsWithoutTimes) {
  std::string line = FirstLine(Fixture("h100_a.jsonl"));
  MeasurementRecord ok = *ParseRecordJson(line);
  MeasurementRecord counted = ok;
  counted.status = "counted";
  counted.algo = "torch-kernels";
  counted.median_ms = counted.min_ms = counted.max_ms = counted.p10_ms = counted.p90_ms = NAN;
  counted.reps = 0;
  counted.workspace_bytes = NAN;
  counted.kernels = {KernelTime{"nchwToNhwcKernel"}, KernelTime{"sm90_xmma_fprop"}};
  const std::string json = RecordToJson(counted);
  EXPECT_EQ(json.find("\"ms\""), std::string::npos) << json;
  auto back = ParseRecordJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(SameRecord(*back, counted));
  EXPECT_TRUE(back->is_kernel_count());
  EXPECT_FALSE(back->has_times());
  ASSERT_EQ(back->kernels.size(), 2u);
  EXPECT_TRUE(std::isnan(back->kernels[1].ms));
  // A timed record's kernels still need their times.
  MeasurementRecord timed = ok;
  timed.kernels = {KernelTime{"k"}};
  std::string no_ms = RecordToJson(timed);
  auto refused = ParseRecordJson(no_ms);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("kernels[0]"), std::string::npos)
      << refused.status().message();
}

// Issue 24: dims that each fit int64 but describe impossible work (db fit
// then reported 1.5e17 TFLOP/s) are refused; the real record passes.
TEST(RecordTest, ImpossibleWorkRateIsRefused) {
  std::string line = FirstLine(Fixture("h100_a.jsonl"));
  ASSERT_TRUE(ParseRecordJson(line).ok());
  std::string huge = line;
  huge.replace(huge.find("n=16 "), 5, "n=4000000000000000000 ");
  auto r = ParseRecordJson(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field 'key'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("TFLOP/s, more than the limit of 1e+06"), std::string::npos)
      << r.status().message();
  // A big but possible batch (1e9 GB/s would need more) still passes.
  std::string big = line;
  big.replace(big.find("n=16 "), 5, "n=64 ");
  EXPECT_TRUE(ParseRecordJson(big).ok());
}

TEST(RecordTest, JsonRoundTripIsExact) {
  auto contents = ReadRecordsJsonl(Fixture("h100_a.jsonl"));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  ASSERT_EQ(contents->records.size(), 6u);
  for (const MeasurementRecord& r : contents->records) {
    auto back = ParseRecordJson(RecordToJson(r));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(SameRecord(r, *back)) << RecordToJson(r);
  }
  // An unsupported record is written without times.
  EXPECT_EQ(RecordToJson(contents->records[2]).find("median_ms"), std::string::npos);
}

TEST(RecordTest, JsonlSkipsBlankLinesAndCrLf) {
  auto contents = ReadRecordsJsonl(Fixture("h100_b.jsonl"));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(contents->records.size(), 3u);
  EXPECT_TRUE(contents->warnings.empty());
}

TEST(RecordTest, TruncatedFinalLineIsAWarning) {
  auto contents = ReadRecordsJsonl(Fixture("truncated_tail.jsonl"));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(contents->records.size(), 2u);
  ASSERT_EQ(contents->warnings.size(), 1u);
  EXPECT_EQ(contents->warnings[0].rfind(Fixture("truncated_tail.jsonl") + ":3: truncated", 0),
            0u);
}

TEST(RecordTest, MalformedMiddleLineIsAnErrorNamingFileAndLine) {
  auto contents = ReadRecordsJsonl(Fixture("malformed_middle.jsonl"));
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message().rfind(Fixture("malformed_middle.jsonl") + ":2: ", 0),
            0u);
}

TEST(RecordTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadRecordsJsonl(Fixture("absent.jsonl")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dlsim
