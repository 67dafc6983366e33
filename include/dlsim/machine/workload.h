// A workload: one unit of work (typically training a model to completion)
// as the figure of merit counts it (docs/fom.md). Either a model dlsim can
// estimate, or figures measured on named machines, or both. Parsed from YAML
// by workload_io.h (schema: docs/workload-format.md) into these plain structs
// with SI units.
#ifndef DLSIM_MACHINE_WORKLOAD_H_
#define DLSIM_MACHINE_WORKLOAD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/util/mode.h"
#include "dlsim/util/loss.h"
#include "dlsim/util/optimizer.h"
#include "dlsim/util/precision.h"

namespace dlsim {

// In ModelRef::inputs, a dimension that stands for the per-GPU batch.
inline constexpr int64_t kBatchDim = -1;

struct ModelRef {
  std::string onnx_path;  // resolved against the workload file's folder
  // Input shapes by graph input name; kBatchDim marks the batch dimension.
  // Empty: the shapes in the model, with its batch dimension set to `batch`.
  std::map<std::string, std::vector<int64_t>> inputs;
};

struct DatasetSpec {
  int64_t train_samples = 0;       // samples before the validation split
  double validation_fraction = 0;  // in [0, 1): held out of training
};

// A figure for one machine, measured or quoted. Exactly one is > 0.
struct MeasuredFigure {
  double unit_time_s = 0;    // wall time of one unit on the share it occupies
  double units_per_day = 0;  // the whole machine's rate, all units in parallel
  std::string source;        // when, where, with what (free text, optional)
};

struct Workload {
  std::string name;
  std::string description;
  std::optional<ModelRef> model;  // absent: measured figures only

  // What one unit of work is (needed to estimate; see docs/fom.md).
  int64_t batch = 0;                 // per GPU
  Precision precision = Precision::kFp32;  // `dtype:` fp32 | tf32 | fp16 | bf16
  Mode mode = Mode::kTraining;
  Optimizer optimizer = Optimizer::kSgdMomentum;
  Loss loss = Loss::kMean;           // training: over the model's first output
  DatasetSpec dataset;
  double epochs = 0;                 // passes over the training samples

  // How much of a machine one unit occupies: whole nodes when
  // nodes_per_unit > 0, else gpus_per_unit GPUs.
  int64_t gpus_per_unit = 1;
  int64_t nodes_per_unit = 0;
  double setup_s = 0;                // fixed time per unit (start-up, I/O)

  // Figures by machine name (Machine::name, e.g. "titan").
  std::map<std::string, MeasuredFigure> measured;

  // Where it came from, for messages: "workloads/x.yaml: workloads[2]".
  std::string source_path;
  std::string field_path;  // "" for a plain workload file

  bool OccupiesNodes() const { return nodes_per_unit > 0; }
  const MeasuredFigure* MeasuredOn(const std::string& machine_name) const {
    auto it = measured.find(machine_name);
    return it == measured.end() ? nullptr : &it->second;
  }
  // "workloads/x.yaml: workloads[2] (P3)" or "workloads/x.yaml (P3)".
  std::string Where() const {
    return source_path + (field_path.empty() ? "" : ": " + field_path) + " (" + name + ")";
  }
};

// A workload file: one workload at top level, or a FOM study with a list of
// workloads and optionally the target and baseline machines.
struct WorkloadFile {
  std::string path;
  std::string title;
  std::string target_path;    // machine YAML, resolved; "" when not given
  std::string baseline_path;  // machine YAML, resolved; "" when not given
  std::vector<Workload> workloads;
};

}  // namespace dlsim

#endif  // DLSIM_MACHINE_WORKLOAD_H_
