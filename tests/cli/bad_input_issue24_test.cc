// Issue 24, "Reliability, second pass": hostile inputs that crashed, ran
// silently with a wrong meaning, or left damaged output. Each case exits 1
// with "dlsim: error:" and a message naming the file, key or node. The
// committed inputs live in tests/data/hostile/ (fuzzers start from them).
#include <sqlite3.h>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

const std::string kTinyModel = std::string(DLSIM_TEST_DATA_DIR) + "/models/tiny_cnn_opset17.onnx";

std::string Hostile(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/hostile/" + name;
}

std::string Records(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/perfdb/" + name;
}

std::string FirstRecord() {
  const std::string all = ReadFile(Records("h100_a.jsonl"));
  return all.substr(0, all.find('\n') + 1);
}

// `db import` of the first record with `from` replaced by `to`.
std::string ImportEdited(const std::string& name, const std::string& from, const std::string& to) {
  std::string line = FirstRecord();
  const size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) line.replace(at, from.size(), to);
  return "db import " + WriteFile(name + ".jsonl", line) + " --db " +
         (WorkDir() / (name + ".db")).string();
}

// A database holding h100_a.jsonl, then `sql` run on it.
std::string EditedDb(const std::string& name, const std::string& sql) {
  const std::string db = (WorkDir() / name).string();
  std::filesystem::remove(db);
  const Outcome r = RunDlsim("db import " + Records("h100_a.jsonl") + " --db " + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(raw);
  return db;
}

const BadCase kCases[] = {
    // 1. A split that leaves no training sample aborted in fom.cc.
    {"WorkloadNoTrainingSampleEstimate",
     [] { return "estimate --workload " + Hostile("workload_no_training_sample.yaml") + " --machine h100"; },
     {"workload_no_training_sample.yaml", "dataset.validation_fraction", "no training sample"}},
    {"WorkloadNoTrainingSampleFom",
     [] {
       return "fom " + Hostile("workload_no_training_sample.yaml") + " --machine h100 --baseline h200";
     },
     {"workload_no_training_sample.yaml", "dataset.validation_fraction", "no training sample"}},
    // 2. --batch 0 and --batch "" ran as the model's batch.
    {"EstimateBatchZero", [] { return "estimate " + kTinyModel + " --batch 0"; },
     {"--batch must be a positive integer, got '0'"}},
    {"EstimateBatchEmpty", [] { return "estimate " + kTinyModel + " --batch ''"; },
     {"--batch must be a positive integer, got ''"}},
    {"InspectBatchZero", [] { return "inspect " + kTinyModel + " --batch 0"; },
     {"--batch must be a positive integer, got '0'"}},
    {"InspectBatchEmpty", [] { return "inspect " + kTinyModel + " --batch ''"; },
     {"--batch must be a positive integer, got ''"}},
    {"EstimateBatchPastInt64",
     [] { return "estimate " + kTinyModel + " --batch 99999999999999999999"; },
     {"--batch must be a positive integer, got '99999999999999999999'"}},
    {"PlanBatchZero", [] { return "plan " + kTinyModel + " --batch 0"; },
     {"--batch must be a positive integer, got 0"}},
    // 3. A kernel larger than its padded input gave a 1x4x0x0 output.
    {"ConvKernelLargerThanInput",
     [] { return "estimate " + Hostile("conv_kernel_larger_than_input.onnx") + " --machine h100"; },
     {"conv_kernel_larger_than_input.onnx", "node 'big_conv' (Conv)",
      "is larger than the padded input (6)"}},
    // 4. An op of another domain named like an ONNX op was priced as it.
    {"ForeignDomainReluStrict",
     [] { return "estimate " + Hostile("foreign_domain_relu.onnx") + " --machine h100 --strict"; },
     {"node 'evil_relu'", "evil.domain::Relu", "not known"}},
    // 5. A typo among the dispatch kinds was ignored.
    {"MachineDispatchKindTypo",
     [] { return "estimate " + kTinyModel + " --machine " + Hostile("machine_dispatch_kind_typo.yaml"); },
     {"machine_dispatch_kind_typo.yaml", "host.dispatch_us_by_kind.conv_fwdd", "unknown kind"}},
    // 6. A grid of 10^10 variants died with bad_alloc.
    {"SweepGridTooLarge",
     [] {
       std::string args = "sweep " + std::string(DLSIM_SOURCE_DIR) +
                          "/workloads/candle-fom-example.yaml --machine h100";
       for (const char* f : {"memory_bw", "matrix_peak", "vector_peak", "sm_count", "nodes"}) {
         args += std::string(" --grid ") + f + "=";
         for (int i = 1; i <= 100; ++i) args += (i > 1 ? "," : "") + std::to_string(i);
       }
       return args;
     },
     {"--grid: 10000000000 variants, more than the limit of 1000000"}},
    // 7. Nested mapping aliases (billion laughs) grew past 4 GB.
    {"MachineAliasBomb",
     [] { return "estimate " + kTinyModel + " --machine " + Hostile("machine_alias_bomb.yaml"); },
     {"machine_alias_bomb.yaml:11:", "an alias of a mapping or list"}},
    // 8. Measurement records: range-checked on import ...
    {"RecordsAbsurdTime",
     [] { return ImportEdited("r_1e300", "\"median_ms\": 0.25", "\"median_ms\": 1e300"); },
     {"r_1e300.jsonl:1", "median_ms", "outside [0, 1e+06]"}},
    {"RecordsMinAboveMax",
     [] { return ImportEdited("r_minmax", "\"min_ms\": ", "\"min_ms\": 1000, \"x\": "); },
     {"r_minmax.jsonl:1", "min_ms", "is more than max_ms"}},
    {"RecordsMedianOutsideMinMax",
     [] { return ImportEdited("r_median", "\"median_ms\": 0.25", "\"median_ms\": 900"); },
     {"r_median.jsonl:1", "median_ms", "outside [min_ms, max_ms]"}},
    {"RecordsZeroReps",
     [] { return ImportEdited("r_reps0", "\"reps\": 100", "\"reps\": 0"); },
     {"r_reps0.jsonl:1", "reps", ">= 1"}},
    {"RecordsRepsPastInt64",
     [] { return ImportEdited("r_reps63", "\"reps\": 100", "\"reps\": 9223372036854775808"); },
     {"r_reps63.jsonl:1", "reps", "out of range", "9223372036854775808"}},
    {"RecordsDimPastInt64",
     [] { return ImportEdited("r_dim", "n=16 ", "n=99999999999999999999 "); },
     {"r_dim.jsonl:1", "n=99999999999999999999", "int64"}},
    {"RecordsDimsImpossibleWork",
     [] { return ImportEdited("r_dim_work", "n=16 ", "n=4000000000000000000 "); },
     {"r_dim_work.jsonl:1", "field 'key'", "TFLOP/s, more than the limit of 1e+06"}},
    {"RecordsOneGarbageLine",
     [] {
       return "db import " + WriteFile("r_garbage.jsonl", "hello, not a record") + " --db " +
              (WorkDir() / "r_garbage.db").string();
     },
     {"r_garbage.jsonl:1", "invalid JSON"}},
    // ... and on reading a database.
    {"DbNegativeTime",
     [] {
       return "db export --db " +
              EditedDb("neg.db", "UPDATE measurements SET median_ms = -1e300 WHERE id = 1") +
              " --out " + (WorkDir() / "neg.csv").string();
     },
     {"neg.db: measurement 1 (key '", "median_ms", "outside [0, 1e+06]"}},
    {"DbTextTime",
     [] {
       return "db export --db " +
              EditedDb("text.db", "UPDATE measurements SET median_ms = 'fast' WHERE id = 1") +
              " --out " + (WorkDir() / "text.csv").string();
     },
     {"text.db: measurement 1 (key '", "column median_ms holds 'fast', not a number"}},
    // 9. Writes to a full device were reported as done.
    {"ExportToDevFull",
     [] {
       const std::string db = EditedDb("full.db", "SELECT 1");
       return "db export --db " + db + " --out /dev/full";
     },
     {"cannot write /dev/full", "No space left on device"}},
    // 11. Smaller ones.
    {"MachineTinyNumber",
     [] { return "estimate " + kTinyModel + " --machine " + Hostile("machine_tiny_number.yaml"); },
     {"machine_tiny_number.yaml", "device.memory_bw_gbs", "absurdly small value 1e-300"}},
    {"MachineIsSomeOtherTextFile",
     [] {
       return "estimate " + kTinyModel + " --machine " +
              WriteFile("notes.yaml", "This is a long text file, not YAML at all, " +
                                          std::string(5000, 'x') + " END-OF-FILE-MARKER");
     },
     {"notes.yaml", "the document must be a mapping", "(5062 characters)"}},
    {"CliConversionError", [] { return "estimate " + kTinyModel + " --mode training --gpus many"; },
     {"--gpus", "many"}},
    {"DbWrongSchema",
     [] {
       return "db stats --db " + EditedDb("wrong.db", "ALTER TABLE measurements DROP COLUMN kernels");
     },
     {"wrong.db", "not a dlsim performance database", "table measurements has no column kernels"}},
};

class Issue24Test : public ::testing::TestWithParam<BadCase> {};

TEST_P(Issue24Test, FailsCleanlyNamingFileAndPlace) { ExpectCleanFailure(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Issue24, Issue24Test, ::testing::ValuesIn(kCases), CaseName);

// An empty records file is refused before the database is created.
TEST(Issue24Extra, EmptyRecordsFileImportsNothing) {
  const std::string db = (WorkDir() / "empty_import.sqlite").string();
  const Outcome r = RunDlsim("db import --db " + db + " " + WriteFile("empty.jsonl", "\n  \n"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("empty.jsonl: no measurement record"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(db));
}

// The echo of a non-YAML file is cut, not the whole file.
TEST(Issue24Extra, NonYamlMachineIsNotEchoed) {
  const Outcome r = RunDlsim("estimate " + kTinyModel + " --machine " +
                             WriteFile("echo.yaml", std::string(5000, 'y') + " END-MARKER"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.find("END-MARKER"), std::string::npos) << r.output;
  EXPECT_LT(r.output.size(), 400u) << r.output;
}

// An op of another domain is never priced as the ONNX op of its name: it is
// an unknown op (bytes moved) named with its domain.
TEST(Issue24Extra, ForeignDomainOpIsUnknownNotRelu) {
  const Outcome r = RunDlsim("estimate " + Hostile("foreign_domain_relu.onnx") +
                             " --machine h100 --format json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("unknown op evil.domain::Relu priced by bytes moved"), std::string::npos)
      << r.output;
}

// When writing --html, --csv or --trace fails partway (here: a file-size
// limit), the previous file is kept whole and no temporary file is left.
TEST(Issue24Extra, FailedReportWriteKeepsThePreviousFile) {
  const std::filesystem::path dir = WorkDir() / "reports";
  std::filesystem::create_directories(dir);
  for (const char* flag : {"--html", "--csv", "--trace"}) {
    const std::string out = (dir / (std::string(flag + 2) + ".out")).string();
    WriteFile("reports/" + std::string(flag + 2) + ".out", "previous good file\n");
    // SIGXFSZ ignored (it survives exec), so write(2) fails with EFBIG.
    const std::string cmd = "sh -c \"trap '' XFSZ; ulimit -f 1; " + std::string(DLSIM_BINARY) +
                            " estimate " + kTinyModel + " --machine h100 " + flag + " " + out +
                            "\" 2>&1";
    Outcome r;
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
    const int status = pclose(pipe);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << flag << ": " << r.output;
    EXPECT_NE(r.output.find("dlsim: error: cannot write " + out + ": write: File too large"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(ReadFile(out), "previous good file\n") << flag;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

// 10. Imports into a database that does not exist yet, started together,
// all succeed (they raced on creating the schema).
TEST(Issue24Extra, ConcurrentImportsIntoANewDatabase) {
  for (int round = 0; round < 3; ++round) {
    const std::string db = (WorkDir() / ("race" + std::to_string(round) + ".db")).string();
    std::filesystem::remove(db);
    std::string cmd = "sh -c '";
    for (int i = 0; i < 4; ++i) {
      cmd += std::string(DLSIM_BINARY) + " db import " +
             Records(i % 2 ? "h100_a.jsonl" : "h100_b.jsonl") + " --db " + db + " > /dev/null 2>" +
             db + ".err" + std::to_string(i) + " & p" + std::to_string(i) + "=$!; ";
    }
    cmd += "fail=0; for p in $p0 $p1 $p2 $p3; do wait $p || fail=1; done; exit $fail'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "round " << round;
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(ReadFile(db + ".err" + std::to_string(i)), "") << "round " << round << " import " << i;
    }
    const Outcome stats = RunDlsim("db stats --db " + db);
    EXPECT_EQ(stats.exit_code, 0) << stats.output;
  }
}

}  // namespace
}  // namespace dlsim::badinput
