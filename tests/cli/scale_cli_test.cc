// `dlsim scale`: a training step at scale, a layout search, and bad input.
#include <gtest/gtest.h>

#include "bad_input_util.h"

namespace dlsim {
namespace {

using badinput::RunDlsim;
using badinput::WriteFile;

const std::string kJob = std::string(DLSIM_SOURCE_DIR) + "/workloads/llm/gpt3-175b.yaml";

TEST(ScaleCliTest, JsonHasTheStepItsPartsAndMemory) {
  const auto r = RunDlsim("scale " + kJob + " --machine a100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* field : {"\"step_s\"", "\"bubble\"", "\"tensor_comm\"", "\"memory_gib\"",
                            "\"train_days\"", "\"kernel_time_priced_by\"", "\"mfu\""}) {
    EXPECT_NE(r.output.find(field), std::string::npos) << field;
  }
}

TEST(ScaleCliTest, SearchListsLayoutsOfTheGivenGpus) {
  const auto r = RunDlsim("scale " + kJob + " --machine a100 --search --gpus 512 --top 3 "
                          "--tensor 8 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // the header, after a100's scaling note on stderr
  EXPECT_NE(r.output.find("\nmodel,machine,gpus,tensor,pipeline,data"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gpt3-175b,a100,512,8,"), std::string::npos) << r.output;
}

TEST(ScaleCliTest, BaselineGivesTheFigureOfMerit) {
  const auto r = RunDlsim("scale " + kJob + " --machine h100 --baseline a100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"baseline\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"fom\""), std::string::npos) << r.output;
  const auto bad = RunDlsim("scale " + kJob + " --machine h100 --baseline no_such_machine");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("no_such_machine"), std::string::npos) << bad.output;
}

TEST(ScaleCliTest, LayoutThatDoesNotDivideIsRefused) {
  const auto r = RunDlsim("scale " + kJob + " --machine a100 --tensor 5");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("parallel.tensor"), std::string::npos) << r.output;
}

TEST(ScaleCliTest, GpusWithoutSearchMustMatchTheLayout) {
  const auto r = RunDlsim("scale " + kJob + " --machine a100 --gpus 16");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--search"), std::string::npos) << r.output;
}

TEST(ScaleCliTest, HybridShardingIsInTheLayoutAndNeedsZero) {
  // gpt3-175b.yaml: tensor 8, pipeline 8, data 16.
  const auto r = RunDlsim("scale " + kJob + " --machine a100 --zero 1 --zero-shard 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("zero 1 shard 4"), std::string::npos) << r.output;
  const auto json =
      RunDlsim("scale " + kJob + " --machine a100 --zero 1 --zero-shard 4 --format json");
  EXPECT_NE(json.output.find("\"zero_shard\": 4"), std::string::npos) << json.output;
  const auto bad = RunDlsim("scale " + kJob + " --machine a100 --zero-shard 4");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("parallel.zero_shard: shards the ZeRO state"), std::string::npos)
      << bad.output;
}

// machines/h100.yaml with its database moved away (and no reference to fill
// its gaps): every kernel is priced by roofline, and the step says so, naming
// the file.
TEST(ScaleCliTest, AMissingDatabaseIsReportedWithTheStep) {
  std::string text = badinput::ReadFile(badinput::SourcePath("machines/h100.yaml"));
  const std::string db = "perf_db: ../calibration/h100.sqlite";
  ASSERT_NE(text.find(db), std::string::npos);
  text.replace(text.find(db), db.size(), "perf_db: no_such_database.sqlite");
  const std::string reference = "  scale_from: h200-measured.yaml";  // what the database lacks
  ASSERT_NE(text.find(reference), std::string::npos);
  text.erase(text.find(reference), text.find('\n', text.find(reference)) - text.find(reference) + 1);
  for (size_t at; (at = text.find("../calibration/")) != std::string::npos;) {
    text.replace(at, 15, badinput::SourcePath("calibration/"));
  }
  const std::string machine = WriteFile("moved_db/h100.yaml", text);
  for (const char* format : {"table", "json"}) {
    const auto r = RunDlsim("scale " + kJob + " --machine " + machine + " --format " + format);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("no_such_database.sqlite not found: roofline pricing"), std::string::npos)
        << r.output;
  }
}

TEST(ScaleCliTest, BadJobFileNamesFileAndField) {
  const std::string path = WriteFile("scale/job.yaml",
                                     "name: x\nmodel:\n  layers: 2\n  hidden: -4\n");
  const auto r = RunDlsim("scale " + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(path), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("model.hidden"), std::string::npos) << r.output;
}

TEST(ScaleCliTest, MissingJobFileIsAnError) {
  const auto r = RunDlsim("scale /nonexistent/job.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/job.yaml"), std::string::npos) << r.output;
}

TEST(ScaleCliTest, CallsListsPricedKernels) {
  const auto r = RunDlsim("scale " + kJob + " --machine a100 --calls");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("part,phase,key,time_us,source", 0), 0u);
  EXPECT_NE(r.output.find("layer,fwd,gemm m=2048 n=4608 k=12288"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
