#include <algorithm>
#include <cstdio>
#include <vector>

#include "dlsim/report/report.h"

namespace dlsim {
namespace {

std::string Row(const std::string& name, const std::string& op, int64_t kernels,
                const std::string& flops, const std::string& bytes, const std::string& time,
                const std::string& bound, const std::string& source) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-40.40s %-18.18s %7lld %14s %12s %12s %-8s %-9s\n",
                name.c_str(), op.c_str(), static_cast<long long>(kernels), flops.c_str(), bytes.c_str(), time.c_str(),
                bound.c_str(), source.c_str());
  return buf;
}

}  // namespace

std::string HostDescription(const HostSpec& host) {
  if (!host.Modelled()) {
    return "none modelled: eager time is the GPU's alone (add a host section or --host FILE)";
  }
  std::string text = (host.cpu.empty() ? std::string("CPU not said") : host.cpu) + ", " +
                     host.framework + " " +
                     (host.framework_version.empty() ? std::string("(version not said)")
                                                     : host.framework_version);
  text += host.calibrated ? "; calibrated on it by dlsim-calibrate host"
                          : "; not calibrated on this host (another host's costs: eager time "
                            "moves up to 2x with the CPU; dlsim-calibrate host measures yours)";
  if (!host.profile_path.empty()) text += "; from " + host.profile_path;
  if (!host.taken_from.empty()) text += "; from " + host.taken_from;
  return text;
}

void WriteEstimateHeadline(std::ostream& out, const Estimate& e) {
  const char* unit = e.mode == Mode::kTraining ? "training step" : "batch";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "estimate: %s per %s run op by op (eager, P10-P90 %s - %s); %s captured as a CUDA "
                "graph or compiled (P10-P90 %s - %s)\n",
                FormatTime(e.eager_s).c_str(), unit, FormatTime(e.eager_p10_s).c_str(),
                FormatTime(e.eager_p90_s).c_str(), FormatTime(e.gpu_time_s).c_str(),
                FormatTime(e.p10_s).c_str(), FormatTime(e.p90_s).c_str());
  out << buf;
  if (e.host_s >= e.gpu_time_s && e.eager_s > 0) {
    std::snprintf(buf, sizeof buf,
                  "host-bound: the GPU is busy %.0f %% of the eager time; capturing the %s as a "
                  "CUDA graph or compiling it would save %s\n",
                  100 * e.gpu_time_s / e.eager_s, unit,
                  FormatTime(e.eager_s - e.gpu_time_s).c_str());
    out << buf;
  }
  out << "priced by:";
  for (const auto& [source, share] : e.source_share) {
    std::snprintf(buf, sizeof buf, " %s %.1f%%", source.c_str(), share * 100);
    out << buf;
  }
  out << "\n";
}

void WriteEstimateTable(std::ostream& out, const Estimate& e, const ReportOptions& options) {
  out << "model " << e.model << " on " << e.machine << ", batch " << e.batch << ", "
      << PrecisionName(e.precision) << ", " << ModeName(e.mode) << "\n";
  WriteEstimateHeadline(out, e);
  if (options.quiet) return;
  out << "\n";
  char header[256];
  std::snprintf(header, sizeof header, "%-40s %-18s %7s %14s %12s %12s %-8s %-9s\n", "layer",
                "op", "kernels", "FLOPs", "bytes", "time", "bound", "source");
  out << header;
  std::vector<const LayerEstimate*> layers;
  for (const LayerEstimate& l : e.layers) {
    if (!l.calls.empty()) layers.push_back(&l);
  }
  if (options.sort_by_time) {
    std::stable_sort(layers.begin(), layers.end(), [](const LayerEstimate* a,
                                                      const LayerEstimate* b) {
      return a->time_s() > b->time_s();
    });
  }
  int rows = 0;
  for (const LayerEstimate* l : layers) {
    if (options.max_table_rows > 0 && rows++ >= options.max_table_rows) break;
    out << Row(l->name, l->op_type, l->kernels(), FormatFlops(l->flops), FormatBytes(l->bytes),
               FormatTime(l->time_s()), BoundName(l->bound()), CostSourceName(l->source()));
  }
  out << "\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-28s %s\n", "GPU time (one stream)", FormatTime(e.gpu_time_s).c_str());
  out << buf;
  std::snprintf(buf, sizeof buf, "%-28s %s - %s\n", "  P10-P90 band", FormatTime(e.p10_s).c_str(),
                FormatTime(e.p90_s).c_str());
  out << buf;
  std::snprintf(buf, sizeof buf, "%-28s %s\n", "critical path (streams)", FormatTime(e.critical_path_s).c_str());
  out << buf;
  std::snprintf(buf, sizeof buf, "%-28s %s (host dispatch %s)\n", "eager (framework)",
                FormatTime(e.eager_s).c_str(), FormatTime(e.host_s).c_str());
  out << buf;
  std::snprintf(buf, sizeof buf, "%-28s %s - %s\n", "  P10-P90 band", FormatTime(e.eager_p10_s).c_str(),
                FormatTime(e.eager_p90_s).c_str());
  out << buf;
  out << "  host                       " << HostDescription(e.host) << "\n";
  std::snprintf(buf, sizeof buf, "%-28s %s, %s moved, %lld kernels, %lld parameters\n", "work",
                FormatFlops(e.flops).c_str(), FormatBytes(e.bytes).c_str(),
                static_cast<long long>(e.kernel_count), static_cast<long long>(e.parameter_count));
  out << buf;
  out << "priced by:";
  for (const auto& [source, share] : e.source_share) {
    std::snprintf(buf, sizeof buf, " %s %.1f%%", source.c_str(), share * 100);
    out << buf;
  }
  out << "\n";
  std::snprintf(buf, sizeof buf, "%-28s %s", "memory footprint", FormatBytes(e.memory.total_bytes()).c_str());
  out << buf;
  if (e.largest_batch >= 0) out << " (largest batch that fits: " << e.largest_batch << ")";
  if (e.recompute != Recompute::kNone) out << ", " << RecomputeName(e.recompute) << " recomputation";
  out << "\n";
  const DataParallelStep& dp = e.data_parallel;
  if (dp.gpus > 1 && dp.zero_stage == 0) {
    std::snprintf(buf, sizeof buf,
                  "%-28s %d GPUs: %s of gradients in %d buckets, all-reduce %s (%s), "
                  "%s not hidden by backward (included above)\n",
                  "data parallel", dp.gpus, FormatBytes(dp.gradient_bytes).c_str(), dp.buckets,
                  FormatTime(dp.allreduce_s).c_str(), dp.method.c_str(),
                  FormatTime(dp.exposed_s).c_str());
    out << buf;
  } else if (dp.gpus > 1) {
    std::snprintf(buf, sizeof buf,
                  "%-28s %d GPUs, ZeRO-%d: %s of gradients reduce-scattered in %d buckets %s, "
                  "weights all-gathered %s (%s), %s not hidden (included above)\n",
                  "data parallel", dp.gpus, dp.zero_stage, FormatBytes(dp.gradient_bytes).c_str(),
                  dp.buckets, FormatTime(dp.allreduce_s).c_str(), FormatTime(dp.allgather_s).c_str(),
                  dp.method.c_str(), FormatTime(dp.exposed_s).c_str());
    out << buf;
  }
}

void WriteEstimateCsv(std::ostream& out, const Estimate& e) {
  out << "model,machine,batch,dtype,mode,layer,op_type,kernels,flops,bytes,fwd_ms,bwd_ms,time_ms,"
         "bound,source\n";
  const std::string head = CsvField(e.model) + "," + CsvField(e.machine) + "," +
                           std::to_string(e.batch) + "," + CsvField(PrecisionName(e.precision)) + "," + ModeName(e.mode) + ",";
  for (const LayerEstimate& l : e.layers) {
    char buf[256];
    std::snprintf(buf, sizeof buf, ",%lld,%.0f,%.0f,%.6f,%.6f,%.6f,%s,%s\n",
                  static_cast<long long>(l.kernels()),
                  l.flops, l.bytes, l.fwd_s * 1e3, l.bwd_s * 1e3, l.time_s() * 1e3,
                  BoundName(l.bound()), CostSourceName(l.source()));
    out << head << CsvField(l.name) << "," << CsvField(l.op_type) << buf;
  }
}

}  // namespace dlsim
