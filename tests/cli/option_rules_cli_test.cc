// Every option applies or is refused (issue 25): each combination in which an
// option would have no effect fails with "--X does not apply with Y (why)",
// exit 1, before any model is loaded; the same options where they apply
// still run.
#include <gtest/gtest.h>

#include <string>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

const std::string kTiny = std::string(DLSIM_TEST_DATA_DIR) + "/models/tiny_cnn_opset17.onnx";
const std::string kWorkload = SourcePath("workloads/resnet50-imagenet.yaml");
const std::string kJob = SourcePath("workloads/llm/gpt3-175b.yaml");
const std::string kTrace = SourcePath("tests/data/traces/resnet18_b16_fp32.trace.json");
const std::string kResnet18 = SourcePath("tests/data/zoo/resnet18.onnx");

std::string Workload(const std::string& extra) {
  return "estimate --workload " + kWorkload + " --machine h100 " + extra;
}

const std::string kFixes = "the workload file fixes the model, batch, dtype, mode, optimizer and loss";
const std::string kOneModel = "it reports one model's layers";

const BadCase kCases[] = {
    // estimate --workload: the workload file fixes the model and how it runs.
    {"WorkloadWithModel", [] { return Workload(kTiny); }, {"give a MODEL.onnx or --workload FILE, not both"}},
    {"WorkloadWithBatch", [] { return Workload("--batch 128"); }, {"--batch does not apply with --workload", kFixes}},
    {"WorkloadWithInput", [] { return Workload("--input x:1x3x224x224"); }, {"--input does not apply with --workload"}},
    {"WorkloadWithDim", [] { return Workload("--dim seq=8"); }, {"--dim does not apply with --workload"}},
    {"WorkloadWithDtype", [] { return Workload("--dtype fp16"); }, {"--dtype does not apply with --workload", kFixes}},
    {"WorkloadWithTf32", [] { return Workload("--tf32 all"); }, {"--tf32 does not apply with --workload"}},
    {"WorkloadWithLayout", [] { return Workload("--layout nhwc"); }, {"--layout does not apply with --workload"}},
    {"WorkloadWithStrict", [] { return Workload("--strict"); }, {"--strict does not apply with --workload"}},
    {"WorkloadWithAmp", [] { return Workload("--amp"); }, {"--amp does not apply with --workload"}},
    {"WorkloadWithFuse", [] { return Workload("--fuse"); }, {"--fuse does not apply with --workload"}},
    {"WorkloadWithMode", [] { return Workload("--mode inference"); }, {"--mode does not apply with --workload"}},
    {"WorkloadWithOptimizer", [] { return Workload("--optimizer adam"); }, {"--optimizer does not apply with --workload"}},
    {"WorkloadWithCheckpoint", [] { return Workload("--checkpoint-activations"); },
     {"--checkpoint-activations does not apply with --workload"}},
    {"WorkloadWithRecompute", [] { return Workload("--recompute selective"); },
     {"--recompute does not apply with --workload"}},
    {"WorkloadWithPerTensorOptimizer", [] { return Workload("--per-tensor-optimizer"); },
     {"--per-tensor-optimizer does not apply with --workload"}},
    {"WorkloadWithLoss", [] { return Workload("--loss none"); }, {"--loss does not apply with --workload"}},
    {"WorkloadWithInputsNeedGrad", [] { return Workload("--inputs-need-grad"); },
     {"--inputs-need-grad does not apply with --workload"}},
    {"WorkloadWithGpus", [] { return Workload("--gpus 8"); }, {"--gpus does not apply with --workload"}},
    {"WorkloadWithZero", [] { return Workload("--zero 1"); }, {"--zero does not apply with --workload"}},
    {"WorkloadWithTop", [] { return Workload("--top 3"); }, {"--top does not apply with --workload", kOneModel}},
    {"WorkloadWithSort", [] { return Workload("--sort graph"); }, {"--sort does not apply with --workload"}},
    {"WorkloadWithQuiet", [] { return Workload("--quiet"); }, {"--quiet does not apply with --workload"}},
    {"WorkloadWithTrace", [] { return Workload("--trace t.json"); }, {"--trace does not apply with --workload"}},
    {"WorkloadWithCsv", [] { return Workload("--csv t.csv"); }, {"--csv does not apply with --workload"}},
    // estimate of one model: the layer table's options with another format or --quiet.
    {"EstimateTopWithJson", [] { return "estimate " + kTiny + " --top 2 --format json"; },
     {"--top does not apply with --format json (it shapes the table only)"}},
    {"EstimateSortWithCsv", [] { return "estimate " + kTiny + " --sort time --format csv"; },
     {"--sort does not apply with --format csv"}},
    {"EstimateQuietWithJson", [] { return "estimate " + kTiny + " --quiet --format json"; },
     {"--quiet does not apply with --format json"}},
    {"EstimateQuietWithTop", [] { return "estimate " + kTiny + " --quiet --top 2"; },
     {"--top does not apply with --quiet", "headline without the layer table"}},
    {"EstimateQuietWithSort", [] { return "estimate " + kTiny + " --quiet --sort graph"; },
     {"--sort does not apply with --quiet"}},
    // TF32 with a 16-bit dtype: the matrix ops run in it.
    {"EstimateTf32WithFp16", [] { return "estimate " + kTiny + " --dtype fp16 --tf32 all"; },
     {"--tf32 does not apply with --dtype fp16", "math mode of fp32 convolutions and GEMMs"}},
    {"AnalyzeTf32WithBf16Amp", [] { return "analyze " + kTiny + " --dtype bf16 --amp --tf32 none"; },
     {"--tf32 does not apply with --dtype bf16"}},
    // An optimizer outside training.
    {"EstimateOptimizerInInference", [] { return "estimate " + kTiny + " --optimizer adam"; },
     {"--optimizer does not apply with inference (the default --mode)", "add --mode training"}},
    {"EstimateLossInInference", [] { return "estimate " + kTiny + " --loss cross_entropy"; },
     {"--loss does not apply with inference (the default --mode)", "add --mode training"}},
    {"EstimateInputsNeedGradInInference", [] { return "estimate " + kTiny + " --inputs-need-grad"; },
     {"--inputs-need-grad does not apply with inference (the default --mode)", "add --mode training"}},
    {"EstimatePerTensorOptimizerInInference",
     [] { return "estimate " + kTiny + " --mode inference --per-tensor-optimizer"; },
     {"--per-tensor-optimizer does not apply with --mode inference"}},
    {"AnalyzeOptimizerInInference", [] { return "analyze " + kTiny + " --optimizer sgd"; },
     {"--optimizer does not apply with inference"}},
    {"CompareOptimizerInInference",
     [] { return "compare " + kResnet18 + " --profile " + kTrace + " --optimizer adamw"; },
     {"--optimizer does not apply with inference"}},
    // analyze and compare: --top shapes the table.
    {"AnalyzeTopWithJson", [] { return "analyze " + kTiny + " --top 2 --format json"; },
     {"--top does not apply with --format json"}},
    {"CompareTopWithJson", [] { return "compare " + kResnet18 + " --profile " + kTrace + " --top 5 --format json"; },
     {"--top does not apply with --format json"}},
    {"CompareTopWithCsv", [] { return "compare " + kResnet18 + " --profile " + kTrace + " --top 5 --format csv"; },
     {"--top does not apply with --format csv"}},
    // comm: --fit-collective picks rows of the --fit tables.
    {"CommFitCollectiveWithoutFit", [] { return "comm --machine h200 --fit-collective all_reduce"; },
     {"--fit-collective does not apply with no --fit"}},
    // scale: --dim is for --onnx, --top for --search; --calls prints CSV only.
    {"ScaleDimWithJobFile", [] { return "scale " + kJob + " --dim seq=2048"; },
     {"--dim does not apply with a job file", "--onnx model"}},
    {"ScaleTopWithoutSearch", [] { return "scale " + kJob + " --top 3"; },
     {"--top does not apply with no --search"}},
    {"ScaleCallsWithSearch", [] { return "scale " + kJob + " --calls --search --gpus 64"; },
     {"--search does not apply with --calls"}},
    {"ScaleCallsWithGpus", [] { return "scale " + kJob + " --calls --gpus 64"; },
     {"--gpus does not apply with --calls"}},
    {"ScaleCallsWithBaseline", [] { return "scale " + kJob + " --calls --baseline a100"; },
     {"--baseline does not apply with --calls"}},
    {"ScaleCallsWithFormatJson", [] { return "scale " + kJob + " --calls --format json"; },
     {"--format json does not apply with --calls (the calls are listed as CSV)"}},
    // inspect shows no math mode or dtype (but --amp places casts by the dtype).
    {"InspectTf32", [] { return "inspect " + kTiny + " --tf32 all"; },
     {"--tf32 does not apply with inspect", "math mode and dtype do not change"}},
    {"InspectDtypeWithoutAmp", [] { return "inspect " + kTiny + " --dtype fp16"; },
     {"--dtype does not apply with inspect without --amp"}},
    // fom and sweep: two study files that name different machines.
    {"FomStudiesNameDifferentTargets",
     [] { return "fom " + SourcePath("workloads/candle-fom-example.yaml") + " " +
                 SourcePath("workloads/candle-projection.yaml"); },
     {"candle-projection.yaml names target:", "give --machine to choose"}},
    {"SweepStudiesNameDifferentTargets",
     [] { return "sweep " + SourcePath("workloads/candle-projection.yaml") + " " +
                 SourcePath("workloads/candle-fom-example.yaml") + " --grid memory_bw=x1,x2"; },
     {"candle-fom-example.yaml names target:", "give --machine to choose the base"}},
};

class OptionRulesTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(OptionRulesTest, RefusedWithAMessage) { ExpectCleanFailure(GetParam()); }
INSTANTIATE_TEST_SUITE_P(OptionRules, OptionRulesTest, ::testing::ValuesIn(kCases), CaseName);

// The same options where they apply.
TEST(OptionRules, TableOptionsApplyToTheTable) {
  const Outcome r = RunDlsim("estimate " + kTiny + " --top 1 --sort graph");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const Outcome q = RunDlsim("estimate " + kTiny + " --quiet");
  EXPECT_EQ(q.exit_code, 0) << q.output;
  const Outcome a = RunDlsim("analyze " + kTiny + " --top 1");
  EXPECT_EQ(a.exit_code, 0) << a.output;
}

TEST(OptionRules, InspectDtypeAppliesWithAmp) {
  const Outcome plain = RunDlsim("inspect " + kTiny + " --format json");
  const Outcome amp = RunDlsim("inspect " + kTiny + " --dtype bf16 --amp --format json");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(amp.exit_code, 0) << amp.output;
  EXPECT_NE(plain.output, amp.output);  // the casts count as kernels
}

TEST(OptionRules, Tf32AppliesToFp32) {
  const Outcome none = RunDlsim("estimate " + kResnet18 + " --batch 8 --tf32 none --format json");
  const Outcome all = RunDlsim("estimate " + kResnet18 + " --batch 8 --tf32 all --format json");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(none.output, all.output);
}

TEST(OptionRules, OptimizerAppliesInTraining) {
  const Outcome r = RunDlsim("estimate " + kTiny + " --mode training --optimizer adam --per-tensor-optimizer --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(OptionRules, WorkloadTakesMachineAndFormat) {
  const Outcome r = RunDlsim(Workload("--format json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(OptionRules, StudiesAgreeingOrOverriddenRun) {
  const std::string both = SourcePath("workloads/candle-fom-example.yaml") + " " +
                           SourcePath("workloads/candle-fom-example-rates.yaml");
  EXPECT_EQ(RunDlsim("fom " + both).exit_code, 0);  // the same target and baseline
  const Outcome r = RunDlsim("fom " + SourcePath("workloads/candle-fom-example.yaml") + " " +
                             SourcePath("workloads/candle-projection.yaml") +
                             " --machine machine-a --baseline titan");
  // --machine and --baseline decide; the projection's models have no figure
  // on machine-a, so it is estimated (machine-a has no calibration: roofline).
  EXPECT_EQ(r.output.find("names target:"), std::string::npos) << r.output;
}

TEST(OptionRules, ScaleTopAndGpusApplyWithSearch) {
  const Outcome r = RunDlsim("scale " + kJob + " --machine a100 --search --gpus 512 --top 2 --format csv");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const Outcome c = RunDlsim("scale " + kJob + " --machine a100 --calls --format csv");
  EXPECT_EQ(c.exit_code, 0) << c.output.substr(0, 300);
}

}  // namespace
}  // namespace dlsim::badinput
