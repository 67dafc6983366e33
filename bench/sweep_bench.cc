// Speed and memory of `dlsim sweep`: 10,000 machine variants (a 10x10x10x10
// grid) x 3 workloads with a cheap stub step time; a small grid priced by the
// general estimator path (MakeStepTimeFn) and by the sweep's (MakeSweepStepTimeFn),
// with the largest difference between them; then the 10,000 variants x the
// workloads of W.yaml with the sweep's path. Prints wall time, variants/s and
// peak RSS.
// Usage: sweep_bench [--machine M] [--workload W.yaml] [--threads N]
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "dlsim/estimate/sweep.h"
#include "dlsim/estimate/workload_estimate.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/workload_io.h"

namespace {

using dlsim::bench::NowS;
using dlsim::bench::PeakRssMib;

dlsim::Workload Synthetic(const std::string& name, int64_t batch) {
  dlsim::Workload w;
  w.name = name;
  w.model = dlsim::ModelRef{};  // never loaded: the step time is a stub
  w.batch = batch;
  w.dataset.train_samples = 1281167;
  w.epochs = 90;
  w.gpus_per_unit = 8;
  return w;
}

// Memory time + compute time + dispatch: touches the swept fields.
dlsim::Result<dlsim::StepEstimate> Stub(const dlsim::Workload& w, const dlsim::Machine& m) {
  const auto& d = m.device;
  return dlsim::PlainStep(w.batch * (1e9 / d.EffectiveMemoryBw() + 1e12 / d.peak_flops.bf16_matrix +
                                     1e9 / d.peak_flops.fp32_vector) + 300 * m.host.dispatch_s);
}

std::string Values(const char* prefix, int n, double step) {
  std::string s = prefix;
  for (int i = 0; i < n; ++i) s += (i ? ",x" : "x") + std::to_string(1 + i * step);
  return s;
}

int Run(const char* label, const std::vector<dlsim::Workload>& workloads,
        const dlsim::Machine& base, const std::vector<std::string>& specs,
        const dlsim::StepTimeFn& fn, int threads, std::vector<double>* step_times = nullptr) {
  auto grid = dlsim::ParseSweepGrid(specs);
  if (!grid.ok()) return std::fprintf(stderr, "%s\n", grid.status().message().c_str()), 1;
  dlsim::SweepOptions options;
  options.threads = threads;
  const double t0 = NowS();
  auto r = dlsim::RunSweep(workloads, base, *grid, fn, options);
  const double wall_s = NowS() - t0;
  if (!r.ok()) return std::fprintf(stderr, "%s\n", r.status().message().c_str()), 1;
  if (step_times != nullptr) {
    for (const auto& v : r->variants) {
      for (const auto& rate : v.rates) step_times->push_back(rate.step_time_s);
    }
  }
  const double t1 = NowS();
  const size_t csv_bytes = dlsim::SweepCsv(*grid, *r).size();
  std::printf("%-6s %6zu variants x %zu workloads: %.3f s, %.0f variants/s, csv %.3f s (%zu B), "
              "top field %s (range %.3f), peak RSS %.1f MiB\n",
              label, r->variants.size(), workloads.size(), wall_s, r->variants.size() / wall_s,
              NowS() - t1, csv_bytes, r->sensitivity[0].field.c_str(), r->sensitivity[0].fom_range,
              PeakRssMib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = DLSIM_BENCH_SOURCE_DIR;
  std::string machine = "h100";
  std::string workload = root + "/workloads/vision-h200-vs-a100.yaml";
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--machine") && i + 1 < argc) machine = argv[++i];
    else if (!std::strcmp(argv[i], "--workload") && i + 1 < argc) workload = argv[++i];
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
  }
  auto base = dlsim::LoadMachineByName(machine);
  if (!base.ok()) return std::fprintf(stderr, "%s\n", base.status().message().c_str()), 1;
  std::vector<dlsim::Workload> synthetic = {Synthetic("a", 64), Synthetic("b", 128),
                                            Synthetic("c", 256)};
  int rc = Run("stub", synthetic, *base,
               {Values("memory_bw=", 10, 0.25), Values("matrix_peak=", 10, 0.5),
                Values("vector_peak=", 10, 0.5), Values("dispatch=", 10, 0.1)},
               Stub, threads);
  auto wf = dlsim::LoadWorkloadFile(workload);
  if (!wf.ok()) return std::fprintf(stderr, "%s\n", wf.status().message().c_str()), 1;
  const std::vector<std::string> small = {"memory_bw=x1,x1.5,x2", "matrix_peak=x1,x2", "nodes=1,4"};
  std::vector<double> exact, fast;
  rc |= Run("exact", wf->workloads, *base, small, dlsim::MakeStepTimeFn(), threads, &exact);
  rc |= Run("sweep", wf->workloads, *base, small, dlsim::MakeSweepStepTimeFn(), threads, &fast);
  double worst = 0;
  for (size_t i = 0; i < exact.size() && i < fast.size(); ++i) {
    worst = std::max(worst, std::abs(fast[i] - exact[i]) / exact[i]);
  }
  std::printf("sweep path vs general path: %zu step times, largest relative difference %.3g\n",
              exact.size(), worst);
  rc |= Run("real", wf->workloads, *base,
            {Values("memory_bw=", 10, 0.25), Values("matrix_peak=", 10, 0.5),
             Values("vector_peak=", 10, 0.5), Values("dispatch=", 10, 0.1)},
            dlsim::MakeSweepStepTimeFn(), threads);
  return rc;
}
