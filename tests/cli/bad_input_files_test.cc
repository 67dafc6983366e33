// Bad machine files, workload files, measurement records, collective tables
// and databases through the CLI (issue 7): every case exits 1 with a message naming the
// file and the field or line at fault. Bad ONNX models: bad_input_onnx_test.cc.
#include <sqlite3.h>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

const std::string kTinyModel = std::string(DLSIM_TEST_DATA_DIR) + "/models/tiny_cnn_opset17.onnx";

const char kMachine[] = R"(name: bad
device:
  name: Test GPU
  sm_count: 10
  boost_clock_mhz: 1500
  peak_tflops:
    fp32_vector: 10
  memory_gib: 16
  memory_bw_gbs: 500
  l2_mib: 4
)";

// kMachine with `from` replaced by `to`, estimated with.
std::string EstimateOnMachine(const std::string& name, const std::string& from,
                              const std::string& to) {
  std::string text = kMachine;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return "estimate " + kTinyModel + " --machine " + WriteFile(name, text);
}

std::string EstimateOnMachineBytes(const std::string& name, const std::string& bytes) {
  return "estimate " + kTinyModel + " --machine " + WriteFile(name, bytes);
}

std::string Workload(const std::string& from, const std::string& to) {
  std::string text = "name: w\nmodel:\n  onnx: " + kTinyModel +
                     "\nbatch: 8\nepochs: 2\ndataset:\n  train_samples: 1000\n";
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string EstimateWorkload(const std::string& name, const std::string& bytes) {
  return "estimate --workload " + WriteFile(name, bytes) + " --machine h100";
}

std::string Records(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/perfdb/" + name;
}

std::string FirstRecord() {
  const std::string all = ReadFile(Records("h100_a.jsonl"));
  return all.substr(0, all.find('\n') + 1);
}

std::string ImportInto(const std::string& db, const std::string& jsonl_name,
                       const std::string& text) {
  return "db import " + WriteFile(jsonl_name, text) + " --db " + (WorkDir() / db).string();
}

// A record with `from` replaced by `to`.
std::string EditedRecord(const std::string& from, const std::string& to) {
  std::string line = FirstRecord();
  const size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) line.replace(at, from.size(), to);
  return line;
}

std::string TableWith(const std::string& from, const std::string& to) {
  std::string text = ReadFile(SourcePath("calibration/nccl/nccl-h200-x2.csv"));
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string Comm(const std::string& name, const std::string& text) {
  return "comm --machine h200 --table " + WriteFile(name, text);
}

// A database holding h100_a.jsonl.
std::string GoodDb(const std::string& name) {
  const std::string db = (WorkDir() / name).string();
  std::filesystem::remove(db);
  const Outcome r = RunDlsim("db import " + Records("h100_a.jsonl") + " --db " + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return db;
}

std::string NewerSchemaDb() {
  const std::string db = GoodDb("newer.db");
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(raw, "UPDATE schema_version SET version = 99", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  return "db stats --db " + db;
}

// Every page after the first overwritten with a pattern.
std::string CorruptedPagesDb() {
  const std::string db = GoodDb("corrupt.db");
  std::string bytes = ReadFile(db);
  EXPECT_GT(bytes.size(), 8192u);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);
  std::ofstream(db, std::ios::binary | std::ios::trunc) << bytes;
  return "db export --db " + db + " --out " + (WorkDir() / "corrupt.csv").string();
}

const BadCase kCases[] = {
    // Machine YAML.
    {"MachineEmpty", [] { return EstimateOnMachineBytes("m_empty.yaml", ""); },
     {"m_empty.yaml"}},
    {"MachineRandom", [] { return EstimateOnMachineBytes("m_random.yaml", Noise(2048, 11)); },
     {"m_random.yaml"}},
    {"MachineTruncated",
     [] { return EstimateOnMachineBytes("m_trunc.yaml", std::string(kMachine).substr(0, 90)); },
     {"m_trunc.yaml", "device.peak_tflops"}},
    {"MachineSyntaxError",
     [] { return EstimateOnMachine("m_syntax.yaml", "sm_count: 10", "sm_count: [10"); },
     {"m_syntax.yaml:5:", "syntax error"}},
    {"MachineWrongType",
     [] { return EstimateOnMachine("m_type.yaml", "sm_count: 10", "sm_count: lots"); },
     {"m_type.yaml", "device.sm_count", "lots"}},
    {"MachineOutOfRange",
     [] { return EstimateOnMachine("m_range.yaml", "memory_bw_gbs: 500", "memory_bw_gbs: 5e9"); },
     {"m_range.yaml", "device.memory_bw_gbs", "absurd"}},
    {"MachineNegative",
     [] { return EstimateOnMachine("m_neg.yaml", "l2_mib: 4", "l2_mib: -4"); },
     {"m_neg.yaml", "device.l2_mib", "-4"}},
    {"MachineNan",
     [] { return EstimateOnMachine("m_nan.yaml", "fp32_vector: 10", "fp32_vector: .nan"); },
     {"m_nan.yaml", "device.peak_tflops.fp32_vector", ".nan"}},
    {"MachineInf",
     [] { return EstimateOnMachine("m_inf.yaml", "boost_clock_mhz: 1500", "boost_clock_mhz: .inf"); },
     {"m_inf.yaml", "device.boost_clock_mhz", ".inf"}},
    {"MachineUnknownKey",
     [] { return EstimateOnMachine("m_key.yaml", "l2_mib: 4", "l2_mib: 4\n  l2_mb: 4"); },
     {"m_key.yaml", "device.l2_mb", "unknown key"}},
    // Workload YAML.
    {"WorkloadEmpty", [] { return EstimateWorkload("w_empty.yaml", ""); }, {"w_empty.yaml"}},
    {"WorkloadRandom", [] { return EstimateWorkload("w_random.yaml", Noise(2048, 13)); },
     {"w_random.yaml"}},
    {"WorkloadTruncated",
     [] { return EstimateWorkload("w_trunc.yaml", Workload("", "").substr(0, 6)); },
     {"w_trunc.yaml"}},
    {"WorkloadWrongType",
     [] { return EstimateWorkload("w_type.yaml", Workload("batch: 8", "batch: eight")); },
     {"w_type.yaml", "batch", "eight"}},
    {"WorkloadNan",
     [] { return EstimateWorkload("w_nan.yaml", Workload("epochs: 2", "epochs: .nan")); },
     {"w_nan.yaml", "epochs", ".nan"}},
    {"WorkloadInf",
     [] { return EstimateWorkload("w_inf.yaml", Workload("epochs: 2", "epochs: .inf")); },
     {"w_inf.yaml", "epochs", ".inf"}},
    {"WorkloadOutOfRange",
     [] {
       return EstimateWorkload("w_range.yaml",
                               Workload("train_samples: 1000",
                                        "train_samples: 1000\n  validation_fraction: 2"));
     },
     {"w_range.yaml", "dataset.validation_fraction", "'2'"}},
    {"WorkloadUnknownKey",
     [] { return EstimateWorkload("w_key.yaml", Workload("epochs: 2", "epochs: 2\nepoch: 3")); },
     {"w_key.yaml", "epoch", "unknown key"}},
    {"WorkloadMissingModel",
     [] {
       return EstimateWorkload("w_model.yaml", Workload(kTinyModel, "no_such_model.onnx"));
     },
     {"no_such_model.onnx"}},
    // Measurement records (JSON lines).
    {"RecordsDeviceFile",
     [] { return "db import /dev/zero --db " + (WorkDir() / "r_dev.db").string(); },
     {"/dev/zero", "not a regular file"}},
    {"MachineDeviceFile", [] { return "estimate " + kTinyModel + " --machine /dev/zero"; },
     {"/dev/zero", "not a regular file"}},
    {"WorkloadDeviceFile", [] { return std::string("estimate --workload /dev/zero"); },
     {"/dev/zero", "not a regular file"}},
    {"RecordsRandom", [] { return ImportInto("r_random.db", "r_random.jsonl", Noise(3000, 17)); },
     {"r_random.jsonl:"}},
    {"RecordsBadLineMidway",
     [] {
       return ImportInto("r_mid.db", "r_mid.jsonl",
                         FirstRecord() + "{\"schema\": 1, oops}\n" + FirstRecord());
     },
     {"r_mid.jsonl:2"}},
    {"RecordsWrongType",
     [] {
       return ImportInto("r_type.db", "r_type.jsonl", EditedRecord("\"reps\": 100", "\"reps\": \"x\""));
     },
     {"r_type.jsonl:1", "reps"}},
    {"RecordsNegativeTime",
     [] {
       return ImportInto("r_neg.db", "r_neg.jsonl",
                         EditedRecord("\"median_ms\": 0.25", "\"median_ms\": -0.25"));
     },
     {"r_neg.jsonl:1", "median_ms", ">= 0"}},
    {"RecordsNewerSchema",
     [] {
       return ImportInto("r_schema.db", "r_schema.jsonl", EditedRecord("\"schema\": 1", "\"schema\": 7"));
     },
     {"r_schema.jsonl:1", "schema"}},
    {"RecordsUnknownStatus",
     [] {
       return ImportInto("r_status.db", "r_status.jsonl",
                         EditedRecord("\"status\": \"ok\"", "\"status\": \"great\""));
     },
     {"r_status.jsonl:1", "great"}},
    // NCCL collective tables (dlsim comm --table).
    {"CollectiveTableBadLineMidway",
     [] { return Comm("t_mid.csv", TableWith("all_reduce,2,1024,16.765", "all_reduce,2,abc,16.765")); },
     {"t_mid.csv:3", "bytes", "'abc'"}},
    {"CollectiveTableInf",
     [] { return Comm("t_inf.csv", TableWith("all_reduce,2,1024,16.765", "all_reduce,2,1024,inf")); },
     {"t_inf.csv:3", "time_us", "'inf'"}},
    {"CollectiveTableRandom", [] { return Comm("t_random.csv", Noise(3000, 19)); },
     {"t_random.csv:1", "header"}},
    {"CollectiveTableEmpty", [] { return Comm("t_empty.csv", ""); }, {"t_empty.csv", "no collective"}},
    // Databases.
    {"DbNewerSchemaVersion", NewerSchemaDb, {"newer.db", "schema version 99", "newer"}},
    {"DbCorruptedPages", CorruptedPagesDb, {"corrupt.db"}},
    {"DbGarbage",
     [] {
       std::string garbage;
       for (int i = 0; i < 300; ++i) garbage += "not a database ";
       return "db stats --db " + WriteFile("garbage.db", garbage);
     },
     {"garbage.db", "not a SQLite database"}},
    {"DbTruncated",
     [] {
       const std::string db = GoodDb("truncated.db");
       const std::string bytes = ReadFile(db);
       std::ofstream(db, std::ios::binary | std::ios::trunc) << bytes.substr(0, 100);
       return "db stats --db " + db;
     },
     {"truncated.db"}},
};

class BadFileTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadFileTest, FailsCleanlyNamingFileAndPlace) { ExpectCleanFailure(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Issue7, BadFileTest, ::testing::ValuesIn(kCases), CaseName);

// An import whose file has a bad line midway leaves the database as it was:
// all or nothing.
TEST(BadFileAtomicity, ImportWithBadLineMidwayImportsNothing) {
  const std::string db = GoodDb("atomic.db");
  const Outcome before = RunDlsim("db stats --db " + db + " --format json");
  ASSERT_EQ(before.exit_code, 0) << before.output;
  const std::string b = ReadFile(Records("h100_b.jsonl"));
  const std::string bad = b.substr(0, b.find('\n') + 1) + "{not json\n" + b.substr(b.find('\n') + 1);
  const Outcome import = RunDlsim("db import " + WriteFile("atomic.jsonl", bad) + " --db " + db);
  EXPECT_EQ(import.exit_code, 1) << import.output;
  EXPECT_NE(import.output.find("atomic.jsonl:2"), std::string::npos) << import.output;
  const Outcome after = RunDlsim("db stats --db " + db + " --format json");
  EXPECT_EQ(after.output, before.output);
}

}  // namespace
}  // namespace dlsim::badinput
