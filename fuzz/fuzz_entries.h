// What each fuzz target does with one input, shared by the libFuzzer
// targets (fuzz/*_fuzz.cc) and the replay test of the corpora and crash
// regressions (tests/fuzz/replay_test.cc). Each returns false when a
// property fails (an error without a message, a record that does not
// survive a round trip); crashes, hangs and sanitizer reports are the
// other failures.
#ifndef DLSIM_FUZZ_FUZZ_ENTRIES_H_
#define DLSIM_FUZZ_FUZZ_ENTRIES_H_

#include <algorithm>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/estimate/fom.h"
#include "dlsim/estimate/sweep_grid.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/training_job_io.h"
#include "dlsim/machine/workload_io.h"
#include "dlsim/distributed/layout_search.h"
#include "dlsim/model/onnx_import.h"
#include "dlsim/perfdb/record.h"
#include "dlsim/profile/trace.h"


namespace dlsim::fuzz {

// A made-up GPU (no database).
inline const Machine& FuzzMachine() {
  static const Machine* machine = [] {
    auto m = LoadMachineFromString(
        "name: fuzz\ndevice:\n  name: Fuzz GPU\n  sm_count: 100\n  peak_tflops:\n"
        "    fp32_vector: 20\n  memory_gib: 40\n  memory_bw_gbs: 2000\n  l2_mib: 40\n",
        "/nonexistent/fuzz/machine.yaml");
    if (!m.ok()) __builtin_trap();
    return new Machine(std::move(m).value());
  }();
  return *machine;
}

// A roofline cost model of FuzzMachine().
inline const CostModel& RooflineCost() {
  static const CostModel* cost = [] {
    auto c = CostModel::ForMachine(FuzzMachine());
    if (!c.ok()) __builtin_trap();
    return new CostModel(std::move(c).value());
  }();
  return *cost;
}

// ONNX import (parse, order, shape inference) with batch 2, then, when it
// imports, lowering and pricing for inference and training. The model
// "lives" in a folder that does not exist: external-data checks run,
// nothing is read.
inline bool OnnxImport(const std::string& bytes) {
  ImportOptions options;
  options.batch = 2;
  auto graph = LoadOnnxModelFromBytes(bytes, "/nonexistent/fuzz/model.onnx", options);
  if (!graph.ok()) return !graph.status().message().empty();
  for (bool training : {false, true}) {
    EstimateOptions eo;
    eo.lowering.training = training;
    auto est = EstimateModel(*graph, RooflineCost(), eo);
    if (!est.ok() && est.status().message().empty()) return false;
  }
  return true;
}

inline bool MachineYaml(const std::string& text) {
  auto machine = LoadMachineFromString(text, "/nonexistent/fuzz/machine.yaml");
  return machine.ok() || !machine.status().message().empty();
}

// A workload or FOM study; when it loads, its FOM of FuzzMachine() against
// a copy named "fuzz_baseline", with a step time of 10 ms for figures that
// are not measured (the rate, split and unit-time arithmetic of fom.cc).
inline bool WorkloadYaml(const std::string& text) {
  auto file = LoadWorkloadFileFromString(text, "/nonexistent/fuzz/workload.yaml");
  if (!file.ok()) return !file.status().message().empty();
  if (file->workloads.empty()) return true;
  Machine baseline = FuzzMachine();
  baseline.name = "fuzz_baseline";
  auto fom = ComputeFom(file->workloads, FuzzMachine(), baseline,
                        [](const Workload&, const Machine&) -> Result<StepEstimate> {
                          return PlainStep(0.01);
                        });
  return fom.ok() || !fom.status().message().empty();
}

// A sweep grid: one "FIELD=V1,V2,..." per line (as --grid takes them); when
// it parses and is within kMaxSweepRows, the variants of its first and last
// points are made from FuzzMachine().
// A training job YAML (dlsim scale): loaded, and when valid its step priced
// by the roofline on a 8-GPU-node machine, and a small layout search.
inline bool TrainingJobYaml(const std::string& text) {
  auto job = LoadTrainingJobFromString(text, "/nonexistent/fuzz/job.yaml");
  if (!job.ok()) return !job.status().message().empty();
  Machine machine = FuzzMachine();
  machine.node.gpus_per_node = 8;
  machine.node.scale_up = LinkSpec{"nvlink", 100e9, 1.0, 1e-6};
  machine.node.nics_per_node = 8;
  machine.node.nic = LinkSpec{"ib", 25e9, 1.0, 2e-6};
  const CostModel cost = CostModel::RooflineOnly(machine);
  const CollectiveModel comm(machine, CollectiveTable());
  const ParallelStepModel model(cost, comm);
  auto est = model.Estimate(job->model, job->plan);
  if (est.ok() && !(est->time.step_s >= 0)) return false;
  LayoutSearchOptions o;
  o.gpus = 16;
  o.global_batch = job->plan.global_batch;
  o.microbatches = {1};
  o.virtual_stages = {1};
  auto r = SearchLayouts(model, job->model, job->plan, o);
  return r.ok() || !r.status().message().empty();
}

inline bool SweepGridSpecs(const std::string& text) {
  std::vector<std::string> specs;
  size_t start = 0;
  while (start <= text.size() && specs.size() < 64) {
    const size_t end = std::min(text.find('\n', start), text.size());
    specs.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  auto grid = ParseSweepGrid(specs);
  if (!grid.ok()) return !grid.status().message().empty();
  const size_t count = grid->VariantCount();
  if (count == 0 || count > kMaxSweepRows) return true;
  for (size_t index : {size_t{0}, count - 1}) {
    auto variant = MakeVariant(FuzzMachine(), *grid, SweepPoint(*grid, index));
    if (!variant.ok() && variant.status().message().empty()) return false;
  }
  return true;
}

// One measurement record; what parses must survive a round trip.
inline bool Record(const std::string& line) {
  auto record = ParseRecordJson(line);
  if (!record.ok()) return !record.status().message().empty();
  return ParseRecordJson(RecordToJson(*record)).ok();
}

// A PyTorch profiler / Kineto Chrome trace (dlsim compare --profile).
inline bool Trace(const std::string& text) {
  auto trace = ParseChromeTrace(text, "/nonexistent/fuzz/profile.trace.json");
  return trace.ok() || !trace.status().message().empty();
}

}  // namespace dlsim::fuzz

#endif  // DLSIM_FUZZ_FUZZ_ENTRIES_H_
