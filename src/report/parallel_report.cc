// `dlsim scale` output (parallel_report.h).
#include "dlsim/report/parallel_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "dlsim/cost/cost_model.h"
#include "dlsim/report/report.h"
#include "dlsim/util/mode.h"

namespace dlsim {

namespace {

using nlohmann::ordered_json;
constexpr double kGiB = 1073741824.0;

ordered_json PlanJson(const ParallelPlan& p) {
  ordered_json j;
  j["tensor"] = p.tensor;
  j["pipeline"] = p.pipeline;
  j["data"] = p.data;
  j["gpus"] = p.gpus();
  j["virtual_stages"] = p.virtual_stages;
  j["microbatch"] = p.microbatch;
  j["global_batch"] = p.global_batch;
  j["microbatches"] = p.microbatches();
  j["sequence_parallel"] = p.sequence_parallel;
  j["recompute"] = RecomputeName(p.recompute);
  j["zero"] = p.zero_stage;
  j["zero_shard"] = p.zero_shard;
  j["overlap_grad_reduce"] = p.overlap_grad_reduce;
  j["dtype"] = DTypeName(p.dtype);
  j["framework"] = TrainingFrameworkName(p.framework);
  return j;
}

ordered_json EstimateJson(const ParallelStepEstimate& e, const ScaleReportContext& ctx) {
  ordered_json j;
  const TransformerSpec& m = e.model;
  j["model"] = {{"name", m.name},         {"layers", m.layers},   {"hidden", m.hidden},
                {"heads", m.heads},       {"kv_heads", m.kv_heads}, {"ffn_hidden", m.ffn_hidden},
                {"vocab", m.vocab},       {"seq_len", m.seq_len}, {"gated_ffn", m.gated_ffn},
                {"tied_embeddings", m.tied_embeddings}, {"params", m.Params()},
                {"attention", AttentionImplName(m.attention)}};
  j["machine"] = ctx.machine;
  j["plan"] = PlanJson(e.plan);
  j["step_s"] = e.time.step_s;
  j["step_p10_s"] = e.time.p10_step_s;
  j["step_p90_s"] = e.time.p90_step_s;
  j["breakdown_s"] = {{"compute", e.time.compute_s},         {"recompute", e.time.recompute_s},
                      {"tensor_comm", e.time.tensor_comm_s}, {"pipeline_comm", e.time.pipeline_comm_s},
                      {"bubble", e.time.bubble_s},           {"data_comm", e.time.data_comm_s},
                      {"optimizer", e.time.optimizer_s}};
  j["memory_gib"] = {{"weights", e.memory.weights_bytes / kGiB},
                     {"gradients", e.memory.gradients_bytes / kGiB},
                     {"optimizer", e.memory.optimizer_bytes / kGiB},
                     {"activations", e.memory.activations_bytes / kGiB},
                     {"total", e.memory.total_bytes() / kGiB},
                     {"stage", e.memory.stage}};
  j["fits"] = e.fits;
  j["model_tflops_per_gpu"] = e.model_tflops_per_gpu;
  j["hardware_tflops_per_gpu"] = e.hardware_tflops_per_gpu;
  j["mfu"] = e.mfu;
  j["tokens_per_s"] = e.tokens_per_s;
  if (ctx.train_tokens > 0) j["train_days"] = ctx.train_tokens / e.tokens_per_s / 86400;
  if (!ctx.baseline_machine.empty()) {
    j["baseline"] = {{"machine", ctx.baseline_machine},
                     {"step_s", ctx.baseline_step_s},
                     {"fom", ctx.baseline_step_s / e.time.step_s}};
  }
  ordered_json share;
  for (CostSource s : {CostSource::kMeasured, CostSource::kFitted, CostSource::kScaled,
                       CostSource::kRoofline}) {
    share[CostSourceName(s)] = e.source_share[static_cast<size_t>(s)];
  }
  j["kernel_time_priced_by"] = share;
  j["warnings"] = e.warnings;
  return j;
}

std::string PlanLabel(const ParallelPlan& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "tp %lld pp %lld dp %lld%s mb %lld%s rc %s zero %d",
                static_cast<long long>(p.tensor), static_cast<long long>(p.pipeline),
                static_cast<long long>(p.data),
                p.virtual_stages > 1 ? (" v " + std::to_string(p.virtual_stages)).c_str() : "",
                static_cast<long long>(p.microbatch), p.sequence_parallel ? " sp" : "",
                RecomputeName(p.recompute), p.zero_stage);
  std::string label = buf;
  if (p.zero_shard > 0) label += " shard " + std::to_string(p.zero_shard);
  return label;
}

void Line(std::ostream& out, const char* label, double s, double step) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %-16s %12s  %5.1f %%\n", label, FormatTime(s).c_str(),
                step > 0 ? 100 * s / step : 0.0);
  out << buf;
}

}  // namespace

std::string ParallelStepToJson(const ParallelStepEstimate& est, const ScaleReportContext& ctx) {
  return EstimateJson(est, ctx).dump(2) + "\n";
}

void WriteParallelStepTable(std::ostream& out, const ParallelStepEstimate& e,
                            const ScaleReportContext& ctx) {
  const TransformerSpec& m = e.model;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %.2fB parameters, %lld layers, hidden %lld, sequence %lld\n",
                m.name.empty() ? "model" : m.name.c_str(), m.Params() / 1e9,
                static_cast<long long>(m.layers), static_cast<long long>(m.hidden),
                static_cast<long long>(m.seq_len));
  out << buf;
  out << ctx.machine << ", " << e.plan.gpus() << " GPUs: " << PlanLabel(e.plan) << ", global batch "
      << e.plan.global_batch << " (" << e.plan.microbatches() << " microbatches)\n\n";
  std::snprintf(buf, sizeof buf, "step time        %12s  (P10-P90 %s - %s)\n",
                FormatTime(e.time.step_s).c_str(), FormatTime(e.time.p10_step_s).c_str(),
                FormatTime(e.time.p90_step_s).c_str());
  out << buf;
  Line(out, "compute", e.time.compute_s, e.time.step_s);
  Line(out, "recompute", e.time.recompute_s, e.time.step_s);
  Line(out, "tensor comm", e.time.tensor_comm_s, e.time.step_s);
  Line(out, "pipeline comm", e.time.pipeline_comm_s, e.time.step_s);
  Line(out, "pipeline bubble", e.time.bubble_s, e.time.step_s);
  Line(out, "data comm", e.time.data_comm_s, e.time.step_s);
  Line(out, "optimizer", e.time.optimizer_s, e.time.step_s);
  std::snprintf(buf, sizeof buf,
                "\nthroughput       %.0f tokens/s, %.1f model TFLOP/s per GPU (%.1f with "
                "recomputation), MFU %.1f %%\n",
                e.tokens_per_s, e.model_tflops_per_gpu, e.hardware_tflops_per_gpu, 100 * e.mfu);
  out << buf;
  if (ctx.train_tokens > 0) {
    std::snprintf(buf, sizeof buf, "time to train    %.1f days for %.3g tokens\n",
                  ctx.train_tokens / e.tokens_per_s / 86400, ctx.train_tokens);
    out << buf;
  }
  if (!ctx.baseline_machine.empty()) {
    std::snprintf(buf, sizeof buf, "FOM vs %s     %.2f (its step %s)\n",
                  ctx.baseline_machine.c_str(), ctx.baseline_step_s / e.time.step_s,
                  FormatTime(ctx.baseline_step_s).c_str());
    out << buf;
  }
  std::snprintf(buf, sizeof buf,
                "memory per GPU   %.1f GiB (stage %d: weights %.1f, gradients %.1f, optimizer %.1f, "
                "activations %.1f)%s\n",
                e.memory.total_bytes() / kGiB, e.memory.stage, e.memory.weights_bytes / kGiB,
                e.memory.gradients_bytes / kGiB, e.memory.optimizer_bytes / kGiB,
                e.memory.activations_bytes / kGiB, e.fits ? "" : "  DOES NOT FIT");
  out << buf;
  std::snprintf(buf, sizeof buf, "kernels priced   %.0f %% measured, %.0f %% fitted, %.0f %% scaled, "
                "%.0f %% roofline\n",
                100 * e.source_share[0], 100 * e.source_share[1], 100 * e.source_share[2],
                100 * e.source_share[3]);
  out << buf;
  for (const std::string& w : e.warnings) out << "warning: " << w << "\n";
}

std::string LayoutSearchToJson(const LayoutSearchResult& r, const ScaleReportContext& ctx) {
  ordered_json j;
  j["evaluated"] = r.evaluated;
  j["fitting"] = r.fitting;
  ordered_json layouts = ordered_json::array();
  for (const ParallelStepEstimate& e : r.best) layouts.push_back(EstimateJson(e, ctx));
  j["layouts"] = layouts;
  return j.dump(2) + "\n";
}

void WriteLayoutSearchTable(std::ostream& out, const LayoutSearchResult& r,
                            const ScaleReportContext& ctx) {
  out << r.evaluated << " layouts evaluated, " << r.fitting << " fit in memory; the fastest:\n\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-4s %-44s %12s %10s %7s %9s\n", "rank", "layout", "step",
                "TFLOP/s", "MFU", "GiB/GPU");
  out << buf;
  for (size_t i = 0; i < r.best.size(); ++i) {
    const ParallelStepEstimate& e = r.best[i];
    std::snprintf(buf, sizeof buf, "%-4zu %-44s %12s %10.1f %6.1f%% %9.1f\n", i + 1,
                  PlanLabel(e.plan).c_str(), FormatTime(e.time.step_s).c_str(),
                  e.model_tflops_per_gpu, 100 * e.mfu, e.memory.total_bytes() / kGiB);
    out << buf;
  }
  if (!r.best.empty()) {
    out << "\nthe fastest in detail:\n";
    WriteParallelStepTable(out, r.best.front(), ctx);
  }
}

void WritePricedCallsCsv(std::ostream& out,
                         const std::vector<ParallelStepModel::PricedCall>& calls,
                         const TrainingJob& job, const std::string& machine) {
  out << "part,phase,key,time_us,source,model,machine,batch,dtype,mode\n";
  const std::string tail = CsvField(job.model.name) + "," + CsvField(machine) + "," +
                           std::to_string(job.plan.microbatch) + "," + DTypeName(job.plan.dtype) +
                           "," + ModeName(Mode::kTraining) + "\n";
  for (const auto& c : calls) {
    out << c.part << "," << PhaseName(c.call.phase) << "," << CsvField(c.call.Key()) << ","
        << c.cost.time_s * 1e6 << "," << CostSourceName(c.cost.source) << "," << tail;
  }
}

void WriteLayoutCsv(std::ostream& out, const std::vector<ParallelStepEstimate>& layouts,
                    const ScaleReportContext& ctx) {
  out << "model,machine,gpus,tensor,pipeline,data,virtual_stages,microbatch,global_batch,"
         "sequence_parallel,recompute,zero,zero_shard,dtype,step_s,step_p10_s,step_p90_s,compute_s,"
         "tensor_comm_s,pipeline_comm_s,bubble_s,data_comm_s,optimizer_s,model_tflops_per_gpu,"
         "mfu,memory_gib,fits,mode\n";
  for (const ParallelStepEstimate& e : layouts) {
    const ParallelPlan& p = e.plan;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d,%s,%d,%lld,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
                  "%.6g,%.6g,%.6g,%.4g,%.4g,%.4g,%d,training\n",
                  static_cast<long long>(p.gpus()), static_cast<long long>(p.tensor),
                  static_cast<long long>(p.pipeline), static_cast<long long>(p.data),
                  static_cast<long long>(p.virtual_stages), static_cast<long long>(p.microbatch),
                  static_cast<long long>(p.global_batch), p.sequence_parallel ? 1 : 0,
                  RecomputeName(p.recompute), p.zero_stage, static_cast<long long>(p.zero_shard),
                  DTypeName(p.dtype), e.time.step_s,
                  e.time.p10_step_s, e.time.p90_step_s, e.time.compute_s, e.time.tensor_comm_s,
                  e.time.pipeline_comm_s, e.time.bubble_s, e.time.data_comm_s, e.time.optimizer_s,
                  e.model_tflops_per_gpu, e.mfu, e.memory.total_bytes() / kGiB, e.fits ? 1 : 0);
    out << CsvField(e.model.name) << "," << CsvField(ctx.machine) << buf;
  }
}

}  // namespace dlsim
