// dlsim scale JOB.yaml --machine M [plan overrides] [--search --gpus N]
// One training step of a large transformer under tensor, pipeline and data
// parallelism, or the fastest layouts on N GPUs (docs/parallel.md).
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "format_option.h"
#include "option_rules.h"
#include "dlsim/distributed/layout_search.h"
#include "dlsim/distributed/plan_overrides.h"
#include "dlsim/distributed/scale_run.h"
#include "dlsim/distributed/transformer_from_graph.h"
#include "dlsim/model/onnx_import.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/training_job_io.h"
#include "dlsim/report/parallel_report.h"

namespace dlsim::cli {
namespace {

struct ScaleArgs {
  std::string job;
  std::string onnx;               // --onnx: the model from its graph instead
  std::vector<std::string> dims;  // --dim NAME=N for --onnx
  std::string machine = "h100";
  std::string baseline;  // "" = none
  PlanOverrides plan;  // layout options
  int64_t gpus = 0;
  bool search = false;
  bool calls = false;
  int top = 10;
  FormatOption format;
};


// The job: a job file, or with --onnx the model read from its graph and a
// layout from the command line alone (global batch: one microbatch per
// replica unless given).
Result<TrainingJob> LoadJob(const ScaleArgs& a) {
  if (a.job.empty() && a.onnx.empty()) {
    return InvalidArgument("give a training job file (docs/parallel.md) or --onnx MODEL");
  }
  if (!a.job.empty() && !a.onnx.empty()) {
    return InvalidArgument("give a job file or --onnx MODEL, not both");
  }
  if (!a.job.empty()) return LoadTrainingJob(a.job);
  ImportOptions io;
  io.batch = 1;
  for (const std::string& spec : a.dims) {
    DLSIM_ASSIGN_OR_RETURN(auto dim, ParseDimSpec(spec));
    io.named_dims[dim.first] = dim.second;
  }
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadOnnxModel(a.onnx, io));
  TrainingJob job;
  job.source_path = a.onnx;
  DLSIM_ASSIGN_OR_RETURN(job.model, TransformerFromGraph(graph));
  const int64_t mb = a.plan.microbatch > 0 ? a.plan.microbatch : 1;
  const int64_t dp = a.plan.data > 0 ? a.plan.data : 1;
  job.plan.global_batch = a.plan.global_batch > 0 ? a.plan.global_batch : mb * dp;
  return job;
}

// --dim reads the ONNX model; --top lists searched layouts; --calls prints
// one microbatch's calls as CSV and nothing else.
Status CheckScaleOptions(const CLI::App& cmd, const ScaleArgs& a, OutputFormat format) {
  if (a.onnx.empty()) {
    DLSIM_RETURN_IF_ERROR(RefuseGiven(cmd, {"--dim"}, "a job file",
                                      "it sets a symbolic dim of the --onnx model"));
  }
  if (a.calls) {
    DLSIM_RETURN_IF_ERROR(RefuseGiven(cmd, {"--search", "--gpus", "--top", "--baseline"}, "--calls",
                                      "--calls lists one microbatch's calls on --machine"));
    if (Given(cmd, "--format") && format != OutputFormat::kCsv) {
      return InvalidArgument(std::string("--format ") + OutputFormatName(format) +
                             " does not apply with --calls (the calls are listed as CSV)");
    }
  }
  ScaleRequest request;
  request.search = a.search;
  return CheckScaleRequestApplies(request, GivenOn(cmd));
}

Status RunScale(const CLI::App& cmd, const ScaleArgs& a) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, a.format.Parse());
  DLSIM_RETURN_IF_ERROR(CheckScaleOptions(cmd, a, format));
  DLSIM_ASSIGN_OR_RETURN(TrainingJob job, LoadJob(a));
  DLSIM_RETURN_IF_ERROR(ApplyOverrides(a.plan, &job.plan));
  DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<PricedMachine> target, PricedMachine::Load(a.machine));
  std::ostringstream out;
  if (a.calls) {
    DLSIM_RETURN_IF_ERROR(ValidatePlan(job.model, job.plan).WithContext(job.source_path));
    WritePricedCallsCsv(out, target->model().MicrobatchCalls(job.model, job.plan), job,
                        target->machine().name);
    std::cout << out.str();
    return Status::Ok();
  }
  ScaleRequest request;
  request.overrides = a.plan;
  request.search = a.search;
  request.gpus = a.gpus;
  request.top = static_cast<size_t>(a.top);
  DLSIM_ASSIGN_OR_RETURN(LayoutSearchResult r, RunScaleJob(job, request, *target));
  ScaleReportContext ctx;
  ctx.machine = target->machine().name;
  ctx.train_tokens = job.train_tokens;
  if (!a.baseline.empty()) {
    DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<PricedMachine> base, PricedMachine::Load(a.baseline));
    auto on_base = RunScaleJob(job, request, *base);
    if (!on_base.ok()) return on_base.status().WithContext("--baseline " + a.baseline);
    ctx.baseline_machine = base->machine().name;
    ctx.baseline_step_s = on_base->best.front().time.step_s;
  }
  if (a.search) {
    if (format == OutputFormat::kJson) out << LayoutSearchToJson(r, ctx);
    if (format == OutputFormat::kCsv) WriteLayoutCsv(out, r.best, ctx);
    if (format == OutputFormat::kTable) WriteLayoutSearchTable(out, r, ctx);
    // the pricing notes, which every layout shares (the best fit, so no "does not fit")
    for (const std::string& w : r.best.front().warnings) ReportWarning(w);
  } else {
    const ParallelStepEstimate& est = r.best.front();
    if (format == OutputFormat::kJson) out << ParallelStepToJson(est, ctx);
    if (format == OutputFormat::kCsv) WriteLayoutCsv(out, r.best, ctx);
    if (format == OutputFormat::kTable) WriteParallelStepTable(out, est, ctx);
    for (const std::string& w : est.warnings) ReportWarning(w);
  }
  std::cout << out.str();
  return Status::Ok();
}

}  // namespace

void RegisterScaleCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ScaleArgs>();
  CLI::App* cmd = app.add_subcommand(
      "scale", "training step of a large transformer under tensor, pipeline and data "
               "parallelism, or a search for the fastest layout (docs/parallel.md)");
  cmd->add_option("job", a->job, "training job YAML (model and parallel sections)");
  cmd->add_option("--onnx", a->onnx,
                  "read the transformer from this ONNX export instead of a job file "
                  "(GPT-style, LayerNormalization nodes); the layout from the options");
  cmd->add_option("--dim", a->dims, "with --onnx: a symbolic input dim, NAME=N (e.g. seq=2048)");
  cmd->add_option("--machine", a->machine, "machine YAML or bundled name")->capture_default_str();
  cmd->add_option("--tensor", a->plan.tensor, "tensor-parallel size")->check(CLI::PositiveNumber);
  cmd->add_option("--pipeline", a->plan.pipeline, "pipeline stages")->check(CLI::PositiveNumber);
  cmd->add_option("--data", a->plan.data, "data-parallel replicas")->check(CLI::PositiveNumber);
  cmd->add_option("--virtual-stages", a->plan.virtual_stages, "interleaved chunks per stage")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--microbatch", a->plan.microbatch, "sequences per microbatch")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--global-batch", a->plan.global_batch, "sequences per step")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--recompute", a->plan.recompute, "none, selective or full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  cmd->add_option("--sequence-parallel", a->plan.sequence_parallel, "true or false")
      ->check(CLI::IsMember({"true", "false"}));
  cmd->add_option("--zero", a->plan.zero, "ZeRO stage 0-3")->check(CLI::Range(0, 3));
  cmd->add_option("--zero-shard", a->plan.zero_shard,
                  "hybrid sharding: data-parallel GPUs one ZeRO shard spans (replicated across "
                  "the rest); needs --zero 1-3")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--overlap-grad-reduce", a->plan.overlap_grad_reduce,
                "overlap the data-parallel gradient reduction with the backward");
  cmd->add_option("--baseline", a->baseline,
                  "also price the job on this machine and report the speed-up (the FOM)");
  cmd->add_flag("--calls", a->calls,
                "list the kernel calls of one microbatch (a layer, the embedding, the head) "
                "with their prices, as CSV");
  cmd->add_flag("--search", a->search,
                "search the layouts of --gpus GPUs; layout options given are kept fixed");
  cmd->add_option("--gpus", a->gpus, "GPUs to lay out (with --search)")->check(CLI::PositiveNumber);
  cmd->add_option("--top", a->top, "layouts to list (with --search)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  AddFormatOption(cmd, &a->format, {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv});
  cmd->callback([cmd, a, exit_code] {
    Status s = RunScale(*cmd, *a);
    if (!s.ok()) *exit_code = ReportError(s);
  });
}

}  // namespace dlsim::cli
