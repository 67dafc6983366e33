// Speed and memory of the estimate pipeline: load + shape + lower + price +
// schedule a model, repeated; prints wall time per stage and peak RSS.
// Usage: estimate_bench [MODEL.onnx] [--batch N] [--machine M] [--reps R]
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_util.h"
#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/model/onnx_import.h"

namespace {

using dlsim::bench::NowS;
using dlsim::bench::PeakRssMib;

}  // namespace

int main(int argc, char** argv) {
  std::string model = std::string(DLSIM_BENCH_SOURCE_DIR) + "/tests/data/zoo/gpt2_small.onnx";
  std::string machine_name = "h100";
  int64_t batch = 16;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--batch") && i + 1 < argc) batch = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--machine") && i + 1 < argc) machine_name = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else model = argv[i];
  }
  auto machine = dlsim::LoadMachine(dlsim::ResolveMachinePath(machine_name));
  if (!machine.ok()) {
    std::fprintf(stderr, "%s\n", machine.status().ToString().c_str());
    return 1;
  }
  auto cost = dlsim::CostModel::ForMachine(*machine);
  if (!cost.ok()) {
    std::fprintf(stderr, "%s\n", cost.status().ToString().c_str());
    return 1;
  }
  double best_load = 1e9, best_est = 1e9;
  size_t nodes = 0;
  for (int r = 0; r < reps; ++r) {
    dlsim::ImportOptions io;
    io.batch = batch;
    double t0 = NowS();
    auto graph = dlsim::LoadOnnxModel(model, io);
    double t1 = NowS();
    if (!graph.ok()) {
      std::fprintf(stderr, "%s\n", graph.status().ToString().c_str());
      return 1;
    }
    nodes = graph->nodes.size();
    dlsim::EstimateOptions eo;
    auto est = dlsim::EstimateModel(*graph, *cost, eo);
    double t2 = NowS();
    if (!est.ok()) {
      std::fprintf(stderr, "%s\n", est.status().ToString().c_str());
      return 1;
    }
    best_load = std::min(best_load, t1 - t0);
    best_est = std::min(best_est, t2 - t1);
  }
  std::printf("model %s: %zu nodes, batch %lld\n", model.c_str(), nodes, static_cast<long long>(batch));
  std::printf("load+shape  %8.1f ms (best of %d)\n", best_load * 1e3, reps);
  std::printf("estimate    %8.1f ms (lower, price, schedule)\n", best_est * 1e3);
  std::printf("total       %8.1f ms\n", (best_load + best_est) * 1e3);
  std::printf("peak RSS    %8.1f MiB\n", PeakRssMib());
  return 0;
}
