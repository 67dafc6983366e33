// What each fuzz target does with one input, shared by the libFuzzer
// targets (fuzz/*_fuzz.cc) and the replay test of the corpora and crash
// regressions (tests/fuzz/replay_test.cc). Each returns false when a
// property fails (an error without a message, a record that does not
// survive a round trip); crashes, hangs and sanitizer reports are the
// other failures.
#ifndef DLSIM_FUZZ_FUZZ_ENTRIES_H_
#define DLSIM_FUZZ_FUZZ_ENTRIES_H_

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
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
#include "kernel/work.h"
#include "dlsim/perfdb/perf_db.h"
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

// A KernelCall of a key's kind, dtype, math, layout and parameters, with
// WorkOfKey's FLOPs and bytes; false when the key has no Work or names a
// dtype, math or layout a call cannot have.
inline bool CallOfKey(const std::string& key_text, KernelCall* call) {
  auto key = ParseKernelKey(key_text);
  if (!key.ok()) return false;
  auto work = WorkOfKey(*key);
  auto math = MathModeFromName(key->math);
  auto layout = LayoutFromName(key->layout);
  if (!work.ok() || !math.ok() || !layout) return false;
  bool dtype_known = false;
  for (DType d : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    if (key->dtype == DTypeName(d)) {
      call->dtype = d;
      dtype_known = true;
    }
  }
  if (!dtype_known) return false;
  call->kind = key->kind;
  call->math = *math;
  call->layout = *layout;
  call->params = key->params;
  call->flops = work->flops;
  call->bytes_read = work->bytes;
  return true;
}

// The path of this process's scratch database file.
inline const std::string& ScratchDbPath() {
  static const std::string path = "/tmp/dlsim_perfdb_file_fuzz_" + std::to_string(getpid()) +
                                  ".sqlite";
  return path;
}

// A performance database read as `dlsim db stats` and `dlsim estimate` read
// one, for a GPU it names (the first) or none: every error names the file.
inline bool ReadPerfDb(const std::string& path) {
  auto has_message = [&path](const Status& s) {
    return s.ok() || s.message().find(path) != std::string::npos;
  };
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  if (!db.ok()) return has_message(db.status());
  if (!has_message(db->Stats().status())) return false;
  if (!has_message(db->AllRecords().status())) return false;
  auto gpus = db->GpuNames();
  if (!gpus.ok()) return has_message(gpus.status());
  const std::string gpu = gpus->empty() ? "Fuzz GPU" : gpus->front();
  if (!has_message(db->Gpu(gpu).status()) || !has_message(db->LatestStack(gpu).status()) ||
      !has_message(db->RecordsOfGpu(gpu).status()) ||
      !has_message(db->RecordsOfKind(gpu, KernelKind::kConvFwd).status()) ||
      !has_message(db->LoadFit(gpu).status())) {
    return false;
  }
  auto timings = db->LoadTimings(gpu);
  if (!timings.ok()) return has_message(timings.status());
  // Priced through the cost model's chain (measured, fitted, roofline), as
  // an estimate with calibration.perf_db = path would: a few fixed keys and
  // the first measured ones.
  Machine machine = FuzzMachine();
  machine.calibration.perf_db = path;
  machine.calibration.db_gpu = gpu;
  auto cost = CostModel::ForMachine(machine);
  if (!cost.ok()) return has_message(cost.status());
  std::vector<std::string> keys = {
      "conv_fwd n=16 c=64 h=56 w=56 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
      "dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw",
      "gemm m=16 n=1000 k=2048 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-"};
  for (const auto& [key, timing] : timings->timings()) {
    if (keys.size() >= 10) break;
    keys.push_back(key);
  }
  for (const std::string& key : keys) {
    KernelCall call;
    if (!CallOfKey(key, &call)) continue;
    const CallCost c = cost->Price(call);
    if (!(c.time_s >= 0)) return false;
  }
  return true;
}

// The scratch file and the -wal, -shm and -journal files SQLite may leave
// beside it (an input whose header says WAL mode).
inline void RemoveScratchDb(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

// A database file (dlsim estimate's calibration.perf_db, `dlsim db stats
// --db`): the bytes are written to a scratch file, which is opened
// read-only and read (stats, records, timings, the fitted models) and a few
// kernel keys priced from it. Any corruption must come back as an error
// naming the file. The scratch files are removed before and after (see
// RemoveScratchDb), so no input sees another's.
inline bool PerfDbFile(const std::string& bytes) {
  const std::string& path = ScratchDbPath();
  RemoveScratchDb(path);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) __builtin_trap();
  }
  const bool ok = ReadPerfDb(path);
  RemoveScratchDb(path);
  return ok;
}

}  // namespace dlsim::fuzz

#endif  // DLSIM_FUZZ_FUZZ_ENTRIES_H_
