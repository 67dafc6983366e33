// End-to-end tests of `dlsim db`: exit codes and the shape of its output.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "dlsim/perfdb/record.h"
#include "perfdb_test_util.h"

namespace dlsim {
namespace {

using testing::Fixture;
using testing::ReadAll;
using testing::TempPath;
using testing::WriteAll;

struct CliRun {
  int exit_code;
  std::string output;  // stdout and stderr
};

CliRun Dlsim(const std::string& args) {
  std::string cmd = std::string(DLSIM_BINARY) + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0) out.append(buf.data(), n);
  int status = pclose(pipe.release());
  return {WEXITSTATUS(status), out};
}

TEST(DbCommandTest, ImportStatsExport) {
  const std::string db = TempPath("cli.db"), out = TempPath("out.csv");
  CliRun import = Dlsim("db import " + Fixture("h100_a.jsonl") + " " + Fixture("h100_b.jsonl") +
                     " --db " + db);
  ASSERT_EQ(import.exit_code, 0) << import.output;
  EXPECT_EQ(import.output,
            "imported 9 records from 2 files into " + db + ": 8 inserted, 1 replaced\n");

  CliRun stats = Dlsim("db stats --db " + db + " --format json");
  ASSERT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_EQ(stats.output.front(), '{');
  EXPECT_NE(stats.output.find("\"records\": 8"), std::string::npos);
  EXPECT_NE(stats.output.find("\"batched_gemm\": 1"), std::string::npos);
  CliRun table = Dlsim("db stats --db " + db);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("records:  8 (ok 6, noisy 1, unsupported 1, failed 0, counted 0)"),
            std::string::npos)
      << table.output;

  CliRun exported = Dlsim("db export --db " + db + " --out " + out);
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  std::string csv = ReadAll(out);
  EXPECT_EQ(csv.substr(0, 9), "gpu_name,");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
}

// The estimator reads one software stack per GPU: a second one is worth a warning.
TEST(DbCommandTest, SecondSoftwareStackWarns) {
  const std::string db = TempPath("cli.db"), other = TempPath("other_stack.jsonl");
  std::string records = ReadAll(Fixture("h100_a.jsonl"));
  for (size_t at = records.find("\"9.1.0\""); at != std::string::npos;
       at = records.find("\"9.1.0\"", at)) {
    records.replace(at, 7, "\"9.9.9\"");
  }
  WriteAll(other, records);
  CliRun first = Dlsim("db import " + Fixture("h100_a.jsonl") + " --db " + db);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output.find("warning"), std::string::npos) << first.output;
  CliRun second = Dlsim("db import " + other + " --db " + db);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("dlsim: warning: " + db +
                               ": GPU 'NVIDIA H100 80GB HBM3' now has 2 software stacks"),
            std::string::npos)
      << second.output;
}

TEST(DbCommandTest, TruncatedTailWarnsAndMalformedFails) {
  const std::string db = TempPath("cli.db");
  CliRun warn = Dlsim("db import " + Fixture("truncated_tail.jsonl") + " --db " + db);
  EXPECT_EQ(warn.exit_code, 0);
  EXPECT_NE(warn.output.find("dlsim: warning: " + Fixture("truncated_tail.jsonl") + ":3: "),
            std::string::npos);
  CliRun bad = Dlsim("db import " + Fixture("malformed_middle.jsonl") + " --db " + db);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.output.rfind("dlsim: error: " + Fixture("malformed_middle.jsonl") + ":2: ", 0),
            0u);
}

// The i-th of 40 synthetic copy keys, with its line end.
std::string CopyKey(int i) {
  return "copy op=cast elems=" + std::to_string(i * 100000) + " dtype=fp32 math=fp32 layout=-\n";
}

// 40 synthetic copy records of one GPU: time = 3 us + bytes / (2 TB/s).
std::string CopyRecordsJsonl() {
  std::string text;
  for (int i = 1; i <= 40; ++i) {
    MeasurementRecord r;
    r.gpu_name = "Test GPU", r.gpu_cc = "8.0", r.gpu_sms = 108, r.gpu_clock_mhz = 1410;
    r.gpu_mem_bytes = 4e10, r.driver = "1", r.cuda = "2", r.cudnn = "3", r.cublas = "4";
    r.key = CopyKey(i);
    r.key.pop_back();
    r.algo = "-", r.status = "ok", r.reps = 10, r.workspace_bytes = 0;
    r.median_ms = r.min_ms = r.max_ms = r.p10_ms = r.p90_ms = 3e-3 + i * 8e5 / 2e12 * 1e3;
    r.time_utc = "2024-01-01T00:00:00Z";
    text += RecordToJson(r) + "\n";
  }
  return text;
}

TEST(DbCommandTest, FitPrintsHeldOutErrors) {
  const std::string jsonl = TempPath("copy.jsonl"), db = TempPath("cli.db");
  testing::WriteAll(jsonl, CopyRecordsJsonl());
  ASSERT_EQ(Dlsim("db import " + jsonl + " --db " + db).exit_code, 0);
  CliRun fit = Dlsim("db fit --db " + db + " --gpu 'Test GPU'");
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  EXPECT_NE(fit.output.find("copy/fp32                 32     8     3.00     -         2000"),
            std::string::npos)
      << fit.output;
  EXPECT_NE(fit.output.find("time = base x geometric mean of measured/base over the 4 nearest "
                            "measured keys"),
            std::string::npos)
      << fit.output;
  EXPECT_NE(fit.output.find("median_err%  p90_err%  boost_med%  boost_p90%  base_median%  "
                            "base_p90%  uses"),
            std::string::npos)
      << fit.output;
  // 40 keys of one kind (20 or more): trees, which tie the neighbours' 0.0 % and so are not used.
  EXPECT_NE(fit.output.find("0.0         0.0         0.0           0.0        neighbours"),
            std::string::npos)
      << fit.output;
  CliRun base_only = Dlsim("db fit --db " + db + " --neighbours 0");
  ASSERT_EQ(base_only.exit_code, 0) << base_only.output;
  EXPECT_NE(base_only.output.find("time = base (no neighbour correction)"), std::string::npos);
  CliRun stats = Dlsim("db stats --db " + db + " --format json");
  EXPECT_NE(stats.output.find("\"fits\": 1"), std::string::npos);
  EXPECT_EQ(Dlsim("db fit --db " + db + " --gpu Nope").exit_code, 1);

  // The band from keys of an unseen model: 10 of the copies, whose times the
  // other 30 predict exactly.
  const std::string band_keys = TempPath("band.txt");
  std::string list = "# keys of one model\n";
  for (int i = 1; i <= 10; ++i) {
    list += "copy op=cast elems=" + std::to_string(i * 400000) + " dtype=fp32 math=fp32 layout=-\n";
  }
  testing::WriteAll(band_keys, list);
  CliRun band = Dlsim("db fit --db " + db + " --band-keys " + band_keys);
  ASSERT_EQ(band.exit_code, 0) << band.output;
  EXPECT_NE(band.output.find("-0.0..0.0 (n 10, median 0.0)"), std::string::npos) << band.output;
  testing::WriteAll(band_keys, list + "copy op=cast elems=x\n");
  CliRun bad_list = Dlsim("db fit --db " + db + " --band-keys " + band_keys);
  EXPECT_EQ(bad_list.exit_code, 1);
  EXPECT_NE(bad_list.output.find(band_keys + ":12"), std::string::npos) << bad_list.output;
}

TEST(DbCommandTest, ExcludeWritesAFittedCopyWithoutTheKeys) {
  // 40 copy keys; a job list names 10 of them and a key the database lacks.
  const std::string jsonl = TempPath("exclude.jsonl"), db = TempPath("exclude.db");
  std::string list = "# keys of one model\n";
  for (int i = 4; i <= 40; i += 4) list += CopyKey(i);
  list += "copy op=cast elems=7 dtype=fp32 math=fp32 layout=-\n";
  testing::WriteAll(jsonl, CopyRecordsJsonl());
  const std::string keys = TempPath("exclude.txt"), out = TempPath("exclude-blind.db");
  testing::WriteAll(keys, list);
  ASSERT_EQ(Dlsim("db import " + jsonl + " --db " + db).exit_code, 0);
  std::remove(out.c_str());
  CliRun run = Dlsim("db exclude --db " + db + " --keys " + keys + " --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("10 records of 11 listed keys left out, 30 records kept; models "
                            "fitted on them (1 classes)"),
            std::string::npos)
      << run.output;
  CliRun stats = Dlsim("db stats --db " + out + " --format json");
  EXPECT_NE(stats.output.find("\"records\": 30"), std::string::npos) << stats.output;
  EXPECT_NE(stats.output.find("\"fits\": 1"), std::string::npos) << stats.output;
  CliRun source = Dlsim("db stats --db " + db + " --format json");  // the source is untouched
  EXPECT_NE(source.output.find("\"records\": 40"), std::string::npos) << source.output;

  // The database itself as --out, a bad key list, an absent database: refused, no file left.
  CliRun self = Dlsim("db exclude --db " + db + " --keys " + keys + " --out " + db);
  EXPECT_EQ(self.exit_code, 1);
  EXPECT_NE(self.output.find("--out is the database itself"), std::string::npos) << self.output;
  const std::string none = TempPath("exclude-none.db");
  CliRun absent = Dlsim("db exclude --db " + TempPath("absent.db") + " --keys " + keys + " --out " + none);
  EXPECT_EQ(absent.exit_code, 1);
  EXPECT_NE(absent.output.find("absent.db"), std::string::npos) << absent.output;
  testing::WriteAll(keys, list + "copy op=cast elems=x\n");
  CliRun bad = Dlsim("db exclude --db " + db + " --keys " + keys + " --out " + none);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find(keys + ":13"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::ifstream(none).good());
  EXPECT_FALSE(std::ifstream(none + ".partial").good());
}

TEST(DbCommandTest, ErrorsExitNonZero) {
  EXPECT_EQ(Dlsim("db stats --db " + TempPath("absent.db")).exit_code, 1);
  EXPECT_NE(Dlsim("db stats").exit_code, 0);  // --db is required
  EXPECT_NE(Dlsim("db export --db x.db --out y --format xml").exit_code, 0);
  EXPECT_EQ(Dlsim("db --help").exit_code, 0);
}

}  // namespace
}  // namespace dlsim
