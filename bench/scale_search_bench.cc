// Speed of `dlsim scale --search`: every tensor x pipeline x data x
// microbatch x interleaving x recomputation x sequence-parallel x ZeRO
// layout of a model on N GPUs (default GPT-3 175B on 4,096 A100s). Prints
// the layouts evaluated, the wall time of the machine load and of the
// search, layouts/s and peak RSS.
// Usage: scale_search_bench [--job J.yaml] [--machine M] [--gpus N]
#include <cstdio>
#include <cstring>
#include <string>

#include "bench_util.h"
#include "dlsim/distributed/layout_search.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/training_job_io.h"

int main(int argc, char** argv) {
  std::string job_path = std::string(DLSIM_BENCH_SOURCE_DIR) + "/workloads/llm/gpt3-175b.yaml";
  std::string machine_name = "a100";
  int64_t gpus = 4096;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--job")) job_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--machine")) machine_name = argv[i + 1];
    if (!std::strcmp(argv[i], "--gpus")) gpus = std::atoll(argv[i + 1]);
  }
  const double t0 = dlsim::bench::NowS();
  auto job = dlsim::LoadTrainingJob(job_path);
  auto machine = dlsim::LoadMachineByName(machine_name);
  if (!job.ok() || !machine.ok()) {
    std::fprintf(stderr, "scale_search_bench: %s\n",
                 (!job.ok() ? job.status() : machine.status()).message().c_str());
    return 1;
  }
  auto cost = dlsim::CostModel::ForMachine(*machine);
  auto comm = dlsim::CollectiveModel::ForMachine(*machine);
  if (!cost.ok() || !comm.ok()) return 1;
  const dlsim::ParallelStepModel model(*cost, *comm);
  const double t1 = dlsim::bench::NowS();
  dlsim::LayoutSearchOptions o;
  o.gpus = gpus;
  o.global_batch = job->plan.global_batch;
  auto r = dlsim::SearchLayouts(model, job->model, job->plan, o);
  const double t2 = dlsim::bench::NowS();
  if (!r.ok()) {
    std::fprintf(stderr, "scale_search_bench: %s\n", r.status().message().c_str());
    return 1;
  }
  std::printf("%s on %lld GPUs of %s: %lld layouts evaluated, %lld fit\n", job->model.name.c_str(),
              static_cast<long long>(gpus), machine_name.c_str(),
              static_cast<long long>(r->evaluated), static_cast<long long>(r->fitting));
  std::printf("load %.2f s, search %.2f s (%.0f layouts/s), peak RSS %.0f MiB\n", t1 - t0, t2 - t1,
              r->evaluated / (t2 - t1), dlsim::bench::PeakRssMib());
  if (!r->best.empty()) {
    std::printf("fastest: %.3f s per step, %.1f model TFLOP/s per GPU\n", r->best[0].time.step_s,
                r->best[0].model_tflops_per_gpu);
  }
  return 0;
}
