// What each fuzz target does with one input, shared by the libFuzzer
// targets (fuzz/*_fuzz.cc) and the replay test of the corpora and crash
// regressions (tests/fuzz/replay_test.cc). Each returns false when a
// property fails (an error without a message, a record that does not
// survive a round trip); crashes, hangs and sanitizer reports are the
// other failures.
#ifndef DLSIM_FUZZ_FUZZ_ENTRIES_H_
#define DLSIM_FUZZ_FUZZ_ENTRIES_H_

#include <string>

#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/workload_io.h"
#include "dlsim/model/onnx_import.h"
#include "dlsim/perfdb/record.h"
#include "dlsim/profile/trace.h"


namespace dlsim::fuzz {

// A roofline cost model of a made-up GPU (no database).
inline const CostModel& RooflineCost() {
  static const CostModel* cost = [] {
    auto m = LoadMachineFromString(
        "name: fuzz\ndevice:\n  name: Fuzz GPU\n  sm_count: 100\n  peak_tflops:\n"
        "    fp32_vector: 20\n  memory_gib: 40\n  memory_bw_gbs: 2000\n  l2_mib: 40\n",
        "/nonexistent/fuzz/machine.yaml");
    if (!m.ok()) __builtin_trap();
    auto c = CostModel::ForMachine(*m);
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

inline bool WorkloadYaml(const std::string& text) {
  auto file = LoadWorkloadFileFromString(text, "/nonexistent/fuzz/workload.yaml");
  return file.ok() || !file.status().message().empty();
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
