#include "dlsim/perfdb/perf_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "perfdb_test_util.h"

namespace dlsim {
namespace {

using testing::Fixture;
using testing::ReadAll;
using testing::TempPath;
using testing::WriteAll;

PerfDb OpenNew(const std::string& path) {
  auto db = PerfDb::Open(path, OpenMode::kCreate);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return std::move(db).value();
}

std::vector<std::string> AllJson(const PerfDb& db) {
  auto records = db.AllRecords();
  EXPECT_TRUE(records.ok()) << records.status().ToString();
  std::vector<std::string> out;
  for (const auto& r : *records) out.push_back(RecordToJson(r));
  return out;
}

// Issue 24: a database past 4 GiB (here a sparse file) is refused before
// SQLite reads it, naming the file and the limit, in every mode.
TEST(PerfDbTest, DatabaseLargerThanTheLimitIsRefused) {
  const std::string path = TempPath("huge.db");
  WriteAll(path, "");
  std::filesystem::resize_file(path, static_cast<uintmax_t>(kMaxPerfDbBytes) + 1);
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kReadWrite, OpenMode::kCreate}) {
    auto db = PerfDb::Open(path, mode);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().message(),
              path + ": 4294967297 bytes, more than the limit of 4294967296 (4 GiB) for a "
                     "performance database");
  }
  std::filesystem::remove(path);
}

// Issue 24: the estimator's read (LoadTimings) refuses a time that is
// negative, absurd or text (text read as 0 and priced convolutions at 0),
// naming the row and its key.
TEST(PerfDbTest, LoadTimingsRefusesBadValuesNamingTheRow) {
  const std::string path = TempPath("bad_values.db");
  {
    PerfDb db = OpenNew(path);
    ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  }
  for (const char* value : {"-1e300", "1e300", "'fast'"}) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    const std::string sql = std::string("UPDATE measurements SET median_ms = ") + value +
                            " WHERE id = 1";
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    auto db = PerfDb::Open(path, OpenMode::kReadOnly);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto timings = db->LoadTimings("NVIDIA H100 80GB HBM3");
    ASSERT_FALSE(timings.ok()) << value;
    const std::string& m = timings.status().message();
    EXPECT_EQ(m.rfind(path + ": measurement 1 (key 'conv_fwd n=16 c=64 ", 0), 0u) << m;
    EXPECT_NE(m.find(value[0] == '\'' ? "column median_ms holds 'fast', not a number"
                                      : "column median_ms holds " + std::string(value[0] == '-' ? "-1e+300" : "1e+300") +
                                            " ms, outside [0, 1e6]"),
              std::string::npos)
        << m;
  }
}

// Issue 24 (perfdb_file_fuzz): a file whose measurements name a software
// stack that table software_stacks lacks (foreign keys are not enforced on
// a file another program wrote) is an error naming the file, not a check
// failure.
TEST(PerfDbTest, MissingSoftwareStackIsAnError) {
  const std::string path = TempPath("no_stack.db");
  {
    PerfDb db = OpenNew(path);
    ASSERT_TRUE(db.ImportJsonl(Fixture("h100_b.jsonl")).ok());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "DELETE FROM software_stacks", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto stack = db->LatestStack("NVIDIA H100 80GB HBM3");
  ASSERT_FALSE(stack.ok());
  EXPECT_EQ(stack.status().code(), StatusCode::kParseError);
  EXPECT_EQ(stack.status().message(),
            path + ": measurements of GPU 'NVIDIA H100 80GB HBM3' name software stack 1, "
                   "which table software_stacks lacks");
}

TEST(PerfDbTest, ImportCountsRowsAndStats) {
  PerfDb db = OpenNew(TempPath("a.db"));
  auto stats = db.ImportJsonl(Fixture("h100_a.jsonl"));
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->files, 1);
  EXPECT_EQ(stats->records, 6);
  EXPECT_EQ(stats->inserted, 6);
  EXPECT_EQ(stats->replaced, 0);
  EXPECT_TRUE(stats->warnings.empty());

  auto s = db.Stats();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->records, 6);
  EXPECT_EQ(s->per_gpu.at("NVIDIA H100 80GB HBM3"), 6);
  EXPECT_EQ(s->per_kind.at("conv_fwd"), 4);
  EXPECT_EQ(s->per_kind.at("gemm"), 1);
  EXPECT_EQ(s->per_kind.at("elementwise"), 1);
  EXPECT_EQ(s->per_status.at("ok"), 4);
  EXPECT_EQ(s->per_status.at("noisy"), 1);
  EXPECT_EQ(s->per_status.at("unsupported"), 1);
  ASSERT_EQ(s->stacks.size(), 1u);
  EXPECT_EQ(s->stacks[0].cudnn, "9.1.0");
  EXPECT_EQ(s->stacks_per_gpu.at("NVIDIA H100 80GB HBM3"), 1);
  EXPECT_EQ(s->fits, 0);
  auto gpus = db.GpuNames();
  ASSERT_TRUE(gpus.ok());
  EXPECT_EQ(*gpus, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  auto gpu = db.Gpu("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ(gpu->sms, 132);
  EXPECT_EQ(gpu->cc, "9.0");
  EXPECT_EQ(db.Gpu("A100").status().code(), StatusCode::kNotFound);
}

TEST(PerfDbTest, CountedRecordsGiveKernelCountsAndNoTimings) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  auto all = db.AllRecords();
  ASSERT_TRUE(all.ok());
  MeasurementRecord counted = all->front();
  const std::string gpu = counted.gpu_name;
  auto before = db.LoadTimings(gpu);
  ASSERT_TRUE(before.ok());
  counted.algo = "torch-kernels";
  counted.status = "counted";
  counted.median_ms = counted.min_ms = counted.max_ms = counted.p10_ms = counted.p90_ms = NAN;
  counted.reps = 0;
  counted.kernels = {KernelTime{"a"}, KernelTime{"b"}, KernelTime{"c"}};
  ASSERT_TRUE(db.ImportRecords({counted}).ok());
  auto counts = db.LoadKernelCounts(gpu);
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  ASSERT_EQ(counts->size(), 1u);
  EXPECT_EQ(counts->at(counted.key), 3);
  auto after = db.LoadTimings(gpu);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), before->size());
  // Export and import keep the kernels without times.
  auto again = db.AllRecords();
  ASSERT_TRUE(again.ok());
  bool found = false;
  for (const auto& r : *again) found = found || SameRecord(r, counted);
  EXPECT_TRUE(found);
}

TEST(PerfDbTest, KernelCountsOfAnEditedFileAreAnErrorNamingIt) {
  const std::string path = TempPath("bad_counts.db");
  MeasurementRecord counted;
  {
    PerfDb db = OpenNew(path);
    ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
    counted = db.AllRecords()->front();
    counted.algo = "torch-kernels";
    counted.status = "counted";
    counted.median_ms = counted.min_ms = counted.max_ms = counted.p10_ms = counted.p90_ms = NAN;
    counted.reps = 0;
    counted.kernels = {KernelTime{"a"}};
    ASSERT_TRUE(db.ImportRecords({counted}).ok());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE measurements SET kernels = '[{' WHERE status = 'counted'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto counts = db->LoadKernelCounts(counted.gpu_name);
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.status().message().find(path), std::string::npos) << counts.status().message();
}

TEST(PerfDbTest, ReimportIsIdempotent) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  std::vector<std::string> before = AllJson(db);
  auto again = db.ImportJsonl(Fixture("h100_a.jsonl"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->inserted, 0);
  EXPECT_EQ(again->replaced, 6);
  EXPECT_EQ(AllJson(db), before);
}

TEST(PerfDbTest, SecondFileAddsAndReplacesRows) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  auto b = db.ImportJsonl(Fixture("h100_b.jsonl"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->inserted, 2);  // batched_gemm, softmax_fwd
  EXPECT_EQ(b->replaced, 1);  // the elementwise key, re-measured
  EXPECT_EQ(db.Stats()->records, 8);
  auto timings = db.LoadTimings("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(timings.ok());
  EXPECT_EQ(timings->Find("elementwise op=add elems=802816 arity=2 dtype=fp32 math=fp32 "
                          "layout=-")->fastest_ms, 0.0029);
}

TEST(PerfDbTest, ExportImportRoundTripGivesIdenticalRows) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl({Fixture("h100_a.jsonl"), Fixture("h100_b.jsonl")}).ok());
  const std::string out1 = TempPath("out1.jsonl"), out2 = TempPath("out2.jsonl");
  ASSERT_TRUE(db.ExportJsonl(out1).ok());
  PerfDb copy = OpenNew(TempPath("b.db"));
  auto stats = copy.ImportJsonl(out1);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->inserted, 8);
  EXPECT_EQ(AllJson(copy), AllJson(db));
  ASSERT_TRUE(copy.ExportJsonl(out2).ok());
  EXPECT_EQ(ReadAll(out1), ReadAll(out2));
}

TEST(PerfDbTest, ExportCsvHasHeaderAndQuotedKernels) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  const std::string out = TempPath("out.csv");
  ASSERT_TRUE(db.ExportCsv(out).ok());
  std::string text = ReadAll(out);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "gpu_name,gpu_cc,gpu_sms,gpu_clock_mhz,gpu_mem_bytes,driver,cuda,cudnn,cublas,key,"
            "algo,heuristic,fastest,median_ms,min_ms,max_ms,p10_ms,p90_ms,reps,workspace_bytes,"
            "status,kernels,time_utc,schema");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);
  EXPECT_NE(text.find(",\"[{\"\"name\"\":\"\"winograd_transform\"\",\"\"ms\"\":0.025}"),
            std::string::npos);
  // The unsupported record has empty time cells.
  EXPECT_NE(text.find("CUDNN_CONVOLUTION_FWD_ALGO_FFT,false,false,,,,,,0,,unsupported,[],"),
            std::string::npos);
}

TEST(PerfDbTest, MalformedLineLeavesDatabaseUnchanged) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  std::vector<std::string> before = AllJson(db);
  auto bad = db.ImportJsonl({Fixture("h100_b.jsonl"), Fixture("malformed_middle.jsonl")});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(Fixture("malformed_middle.jsonl") + ":2: ", 0), 0u);
  EXPECT_EQ(AllJson(db), before);
}

TEST(PerfDbTest, FailureInsideTransactionRollsBack) {
  PerfDb db = OpenNew(TempPath("a.db"));
  ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  std::vector<std::string> before = AllJson(db);
  // The first record is valid; the second names a new GPU without a clock,
  // which breaks the gpus table's NOT NULL constraint after the first landed.
  auto records = ReadRecordsJsonl(Fixture("h100_b.jsonl"))->records;
  MeasurementRecord broken = records[1];
  broken.gpu_name = "Mystery GPU";
  broken.gpu_clock_mhz = std::nan("");
  auto stats = db.ImportRecords({records[0], broken});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("NOT NULL"), std::string::npos)
      << stats.status().message();
  EXPECT_EQ(AllJson(db), before);
  EXPECT_EQ(*db.GpuNames(), std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
}

TEST(PerfDbTest, TruncatedTailIsImportedWithWarning) {
  PerfDb db = OpenNew(TempPath("a.db"));
  auto stats = db.ImportJsonl(Fixture("truncated_tail.jsonl"));
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->inserted, 2);
  ASSERT_EQ(stats->warnings.size(), 1u);
  EXPECT_NE(stats->warnings[0].find("truncated_tail.jsonl:3: truncated"), std::string::npos);
}

TEST(PerfDbTest, NewerSchemaVersionIsRejected) {
  const std::string path = TempPath("v2.db");
  { PerfDb db = OpenNew(path); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE schema_version SET version = 2", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kCreate}) {
    auto db = PerfDb::Open(path, mode);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), StatusCode::kUnsupported);
    EXPECT_EQ(db.status().message(),
              path + ": database schema version 2 is newer than this dlsim supports "
                     "(version 1); use a newer dlsim");
  }
}

TEST(PerfDbTest, GarbageFileIsRejected) {
  const std::string path = TempPath("garbage.db");
  std::string garbage;
  for (int i = 0; i < 200; ++i) garbage += "this is not a database ";
  WriteAll(path, garbage);
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kCreate}) {
    auto db = PerfDb::Open(path, mode);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), StatusCode::kParseError);
    EXPECT_EQ(db.status().message().rfind(path + ": not a SQLite database", 0), 0u)
        << db.status().message();
  }
  EXPECT_EQ(ReadAll(path), garbage);  // untouched
}

TEST(PerfDbTest, CorruptedFileGivesAnErrorNotACrash) {
  const std::string path = TempPath("corrupt.db");
  {
    PerfDb db = OpenNew(path);
    ASSERT_TRUE(db.ImportJsonl(Fixture("h100_a.jsonl")).ok());
  }
  std::string bytes = ReadAll(path);
  ASSERT_GT(bytes.size(), 8192u);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);
  WriteAll(path, bytes);
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  if (db.ok()) {
    auto records = db->AllRecords();
    ASSERT_FALSE(records.ok());
    EXPECT_NE(records.status().message().find(path), std::string::npos);
  } else {
    EXPECT_NE(db.status().message().find(path), std::string::npos);
  }
}

TEST(PerfDbTest, OpenErrors) {
  const std::string absent = TempPath("absent.db");
  EXPECT_EQ(PerfDb::Open(absent, OpenMode::kReadOnly).status().code(), StatusCode::kNotFound);
  const std::string foreign = TempPath("foreign.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto db = PerfDb::Open(foreign, OpenMode::kCreate);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().message(), foreign +
                                       ": a SQLite database but not a dlsim performance "
                                       "database (no schema_version table)");
}

TEST(PerfDbTest, ReadOnlyDatabaseRefusesImport) {
  const std::string path = TempPath("ro.db");
  { PerfDb db = OpenNew(path); }
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto stats = db->ImportJsonl(Fixture("h100_a.jsonl"));
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace dlsim
