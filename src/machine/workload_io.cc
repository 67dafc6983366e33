// Workload and FOM-study YAML: docs/workload-format.md.
#include "dlsim/machine/workload_io.h"

#include <cmath>
#include <filesystem>
#include <set>

#include "dlsim/machine/machine_io.h"
#include "yaml_fields.h"

namespace dlsim {

namespace {

using machine_internal::ErrorSink;
using machine_internal::ParsePositiveInteger;
using machine_internal::Presence;
using machine_internal::ResolveAgainstFileDir;
using machine_internal::YamlFields;

constexpr int64_t kMaxBatch = 100000000;
constexpr int64_t kMaxSamples = 1000000000000000;  // 1e15
constexpr int64_t kMaxUnitSpan = 100000000;
constexpr double kMaxEpochs = 1e7;
constexpr double kMaxSeconds = 1e10;   // about 300 years
constexpr double kMaxHours = kMaxSeconds / 3600;
constexpr double kMaxUnitsPerDay = 1e15;

// "h100" names a bundled machine; anything that looks like a path is taken
// relative to the workload file.
std::string ResolveMachineRef(const std::string& file, const std::string& ref) {
  const std::string ext = std::filesystem::path(ref).extension().string();
  if (ref.find('/') == std::string::npos && ext != ".yaml" && ext != ".yml") {
    return ResolveMachinePath(ref);
  }
  return ResolveAgainstFileDir(file, ref);
}

void ParseInputs(YamlFields& model, ModelRef* ref) {
  YamlFields inputs = model.Map("inputs", Presence::kOptional);
  for (const auto& name : model.MapKeys("inputs")) {
    std::vector<int64_t> dims;
    const auto items = inputs.Sequence(name, Presence::kRequired);
    for (size_t i = 0; i < items.size(); ++i) {
      int64_t d = 0;
      if (items[i].IsScalar() && items[i].Scalar() == "batch" && items[i].Tag() != "!") {
        d = kBatchDim;
      } else if (!ParsePositiveInteger(items[i], &d)) {
        inputs.Fail(name + "[" + std::to_string(i) + "]",
                    "must be a positive integer or batch, got " +
                        machine_internal::Describe(items[i]));
      }
      dims.push_back(d);
    }
    ref->inputs[name] = dims;
  }
  inputs.Finish();
}

std::optional<ModelRef> ParseModel(YamlFields& w) {
  if (!w.Has("model")) {
    w.Allow("model");
    return std::nullopt;
  }
  YamlFields model = w.Map("model", Presence::kOptional);
  ModelRef ref;
  const std::string onnx = model.String("onnx", Presence::kRequired);
  if (!onnx.empty()) ref.onnx_path = ResolveAgainstFileDir(w.file(), onnx);
  ParseInputs(model, &ref);
  model.Finish();
  return ref;
}

// measured: {<machine name>: {unit_time_h | unit_time_s | units_per_day, source}}
void ParseMeasured(YamlFields& w, Workload* out) {
  YamlFields measured = w.Map("measured", Presence::kOptional);
  for (const auto& machine : w.MapKeys("measured")) {
    YamlFields m = measured.Map(machine, Presence::kRequired);
    MeasuredFigure fig;
    const double hours = m.Positive("unit_time_h", Presence::kOptional, kMaxHours);
    const double seconds = m.Positive("unit_time_s", Presence::kOptional, kMaxSeconds);
    fig.units_per_day = m.Positive("units_per_day", Presence::kOptional, kMaxUnitsPerDay);
    fig.unit_time_s = hours > 0 ? hours * 3600 : seconds;
    fig.source = m.String("source", Presence::kOptional);
    m.Finish();  // a typo'd key explains a missing figure best
    const int given = (m.Has("unit_time_h") ? 1 : 0) + (m.Has("unit_time_s") ? 1 : 0) +
                      (m.Has("units_per_day") ? 1 : 0);
    if (m.present() && given != 1) {
      measured.Fail(machine, "give exactly one of unit_time_h, unit_time_s, units_per_day");
    }
    out->measured[machine] = fig;
  }
  measured.Finish();
}

void ParseUnitShare(YamlFields& w, Workload* out) {
  if (w.Has("gpus_per_unit") && w.Has("nodes_per_unit")) {
    w.Fail("nodes_per_unit", "give gpus_per_unit or nodes_per_unit, not both");
  }
  out->gpus_per_unit = w.PositiveInt("gpus_per_unit", Presence::kOptional, kMaxUnitSpan, 1);
  out->nodes_per_unit = w.PositiveInt("nodes_per_unit", Presence::kOptional, kMaxUnitSpan, 0);
  out->setup_s = w.NonNegative("setup_s", 0, kMaxSeconds);
}

// The split must leave a sample to train on, or an epoch has no step (and a
// unit of work no time). Same rounding as TrainSamplesPerEpoch (fom.cc).
void CheckSplitLeavesTraining(YamlFields& dataset, const DatasetSpec& spec) {
  if (spec.train_samples <= 0) return;  // absent (measured-only) or already reported
  const double kept = static_cast<double>(spec.train_samples) * (1.0 - spec.validation_fraction);
  if (std::floor(kept * (1 + 1e-12)) >= 1) return;
  dataset.Fail("validation_fraction",
               "leaves no training sample (train_samples " +
                   std::to_string(spec.train_samples) + " x (1 - " +
                   machine_internal::FormatNumber(spec.validation_fraction) +
                   ") rounds down to 0); lower it or raise train_samples");
}

void ParseWorkload(YamlFields& w, Workload* out) {
  out->source_path = w.file();
  out->field_path = w.path();
  out->name = w.String("name", Presence::kRequired);
  out->description = w.String("description", Presence::kOptional);
  out->model = ParseModel(w);
  // Estimating needs the whole recipe; measured-only workloads need none.
  const Presence need = out->model ? Presence::kRequired : Presence::kOptional;
  out->batch = w.PositiveInt("batch", need, kMaxBatch, 0);
  // Choice has reported any other text and returned the fallback.
  const Result<Precision> precision = ParsePrecision(w.Choice("dtype", {"fp32", "tf32", "fp16", "bf16"}, "fp32"));
  out->precision = precision.ok() ? *precision : Precision::kFp32;
  out->mode = ModeFromName(w.Choice("mode", {"training", "inference"}, "training")).value_or(Mode::kTraining);
  out->optimizer = OptimizerFromName(w.Choice("optimizer", {"sgd", "sgd_momentum", "adam", "adamw"}, "sgd_momentum"))
                       .value_or(Optimizer::kSgdMomentum);
  out->loss = LossFromName(w.Choice("loss", {"none", "mean", "cross_entropy"}, "mean")).value_or(Loss::kMean);
  YamlFields dataset = w.Map("dataset", need);
  out->dataset.train_samples = dataset.PositiveInt("train_samples", Presence::kRequired, kMaxSamples);
  out->dataset.validation_fraction = dataset.FractionBelowOne("validation_fraction", 0);
  CheckSplitLeavesTraining(dataset, out->dataset);
  dataset.Finish();
  out->epochs = w.Positive("epochs", need, kMaxEpochs);
  ParseUnitShare(w, out);
  ParseMeasured(w, out);
  if (w.present() && !out->model && out->measured.empty()) {
    w.Fail("model", "a workload needs a model to estimate, measured figures, or both");
  }
  w.Finish();
}

void ParseStudy(YamlFields& root, WorkloadFile* out) {
  out->title = root.String("title", Presence::kOptional);
  const std::string target = root.String("target", Presence::kOptional);
  const std::string baseline = root.String("baseline", Presence::kOptional);
  if (!target.empty()) out->target_path = ResolveMachineRef(root.file(), target);
  if (!baseline.empty()) out->baseline_path = ResolveMachineRef(root.file(), baseline);
  const auto items = root.Sequence("workloads", Presence::kRequired);
  if (root.sink()->ok() && items.empty()) root.Fail("workloads", "must list at least one workload");
  std::set<std::string> names;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string key = "workloads[" + std::to_string(i) + "]";
    if (!items[i].IsMap()) {
      root.Fail(key, "must be a mapping, got " + machine_internal::Describe(items[i]));
      continue;
    }
    YamlFields w(items[i], root.file(), key, root.sink());
    Workload workload;
    ParseWorkload(w, &workload);
    if (!workload.name.empty() && !names.insert(workload.name).second) {
      w.Fail("name", "duplicate workload name '" + workload.name + "'");
    }
    out->workloads.push_back(std::move(workload));
  }
  root.Finish();
}

}  // namespace

Result<WorkloadFile> LoadWorkloadFileFromString(const std::string& yaml_text,
                                                const std::string& path_for_messages) {
  DLSIM_ASSIGN_OR_RETURN(YAML::Node doc,
                         machine_internal::ParseYaml(yaml_text, path_for_messages));
  auto sink = std::make_shared<ErrorSink>();
  WorkloadFile file;
  file.path = path_for_messages;
  try {
    YamlFields root = YamlFields::Root(doc, path_for_messages, sink);
    if (root.Has("workloads")) {
      ParseStudy(root, &file);
    } else if (root.present()) {
      Workload w;
      ParseWorkload(root, &w);
      file.workloads.push_back(std::move(w));
    }
  } catch (const YAML::Exception& e) {
    return Internal(path_for_messages + ": yaml-cpp failed: " + e.what());
  }
  if (!sink->ok()) return sink->status();
  return file;
}

Result<WorkloadFile> LoadWorkloadFile(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text,
                         machine_internal::ReadTextFile(path, "workload file"));
  return LoadWorkloadFileFromString(text, path);
}

}  // namespace dlsim
