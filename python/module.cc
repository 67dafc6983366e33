// The compiled half of the Python module `dlsim` (python/dlsim/__init__.py is
// the other): dlsim._dlsim, the only user of pybind11. It runs the same code
// as the dlsim command (LoadEstimateSetup, EstimateModel and EstimateToJson
// for `dlsim estimate --format json`; RunSweepOnFiles for `dlsim sweep`) and
// turns a failing Status into a Python exception carrying its message:
// dlsim.Error (a ValueError) for bad input, RuntimeError for internal errors.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dlsim/distributed/scale_run.h"
#include "dlsim/estimate/estimate_setup.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/estimate/sweep_files.h"
#include "dlsim/machine/training_job_io.h"
#include "dlsim/report/parallel_report.h"
#include "dlsim/report/report.h"

namespace py = pybind11;

namespace dlsim::python {
namespace {

// A Status that is not OK and not internal: bad input (file, node, field).
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(const Status& s) : std::runtime_error(s.message()) {}
};

void ThrowIfError(const Status& s) {
  if (s.ok()) return;
  if (s.code() == StatusCode::kInternal) throw std::runtime_error(s.message());
  throw StatusError(s);
}

template <typename T>
T ValueOrThrow(Result<T> r) {
  ThrowIfError(r.status());
  return std::move(r).value();
}

// The options the Python caller gave, as the command line names them
// ("--tf32"): what the shared rules (dlsim/util/option_rules.h) refuse.
OptionGiven GivenIn(std::vector<std::string> given) {
  return [given = std::move(given)](const std::string& name) {
    return std::find(given.begin(), given.end(), name) != given.end();
  };
}

// `dlsim estimate MODEL --format json`: the JSON text. `batch` is the text of
// --batch (None: the model's own batch); `given` the options the caller gave.
std::string EstimateJson(const std::string& model, const std::string& machine,
                         std::optional<std::string> batch, std::vector<std::string> inputs,
                         std::vector<std::string> dims, std::string dtype, std::string tf32,
                         std::string mode, std::string optimizer, bool per_tensor_optimizer,
                         int gpus, bool strict, bool fuse, bool amp, bool checkpoint_activations,
                         std::string layout, int zero, std::string recompute,
                         std::vector<std::string> given, std::string host, std::string loss,
                         bool inputs_need_grad) {
  ModelOptions opts;
  opts.batch_text = std::move(batch);
  opts.inputs = std::move(inputs);
  opts.dims = std::move(dims);
  opts.dtype = std::move(dtype);
  opts.tf32 = std::move(tf32);
  opts.mode = std::move(mode);
  opts.optimizer = std::move(optimizer);
  opts.loss = std::move(loss);
  opts.per_tensor_optimizer = per_tensor_optimizer;
  opts.inputs_need_grad = inputs_need_grad;
  opts.gpus = gpus;
  opts.zero = zero;
  opts.strict = strict;
  opts.fuse = fuse;
  opts.amp = amp;
  opts.checkpoint_activations = checkpoint_activations;
  opts.recompute = std::move(recompute);
  opts.layout = std::move(layout);
  opts.host_profile = std::move(host);
  py::gil_scoped_release release;
  ThrowIfError(CheckModelOptionsApply(opts, GivenIn(std::move(given))));
  EstimateSetup setup = ValueOrThrow(LoadEstimateSetup(model, opts, machine));
  Estimate e = ValueOrThrow(EstimateModel(setup.graph, setup.cost, setup.options));
  return EstimateToJson(e, ReportOptions{});
}

// `dlsim sweep FILES --machine M --grid ...`: one dict per variant and
// workload, the columns of the CSV in its order (SweepCsv: variant, one per
// grid axis, workload, model, machine, batch, dtype, mode, the step and unit
// times with their P10 and P90, units_per_day, fom, the variant's rate band,
// the pricing-source shares, warnings), numbers as floats, batch an int.
py::list SweepRows(const std::vector<std::string>& files, const std::string& machine,
                   const std::vector<std::string>& grid, int threads) {
  SweepOptions options;
  options.threads = threads;
  std::optional<SweepRun> run;
  {
    py::gil_scoped_release release;
    run.emplace(ValueOrThrow(RunSweepOnFiles(files, machine, grid, options)));
  }
  const std::vector<SweepAxis>& axes = run->grid.axes;
  const SweepResult& r = run->result;
  py::list rows;
  for (const SweepVariant& v : r.variants) {
    for (size_t w = 0; w < v.rates.size(); ++w) {
      const MachineRate& m = v.rates[w];
      py::dict row;
      row["variant"] = v.name;
      for (size_t a = 0; a < axes.size(); ++a) row[py::str(axes[a].label)] = axes[a].values[v.point[a]].text;
      const WorkloadInfo& info = r.workload_info[w];
      row["workload"] = r.workloads[w];
      row["model"] = info.model;
      row["machine"] = r.base_machine;
      row["batch"] = info.batch;
      row["dtype"] = PrecisionName(info.precision);
      row["mode"] = ModeName(info.mode);
      row["step_time_s"] = m.step_time_s;
      row["step_p10_s"] = m.step.p10_s;
      row["step_p90_s"] = m.step.p90_s;
      row["unit_time_s"] = m.unit_time_s;
      row["unit_time_p10_s"] = m.unit_time_p10_s;
      row["unit_time_p90_s"] = m.unit_time_p90_s;
      row["units_per_day"] = m.units_per_day;
      row["fom"] = v.fom;
      row["h_rate_low"] = v.h_rate_low;
      row["h_rate_high"] = v.h_rate_high;
      for (const char* source : {"measured", "fitted", "scaled", "roofline"}) {
        auto it = m.step.source_share.find(source);
        row[py::str(std::string("share_") + source)] = it == m.step.source_share.end() ? 0.0 : it->second;
      }
      std::string warnings;
      for (const std::string& text : m.step.warnings) warnings += (warnings.empty() ? "" : "; ") + text;
      row["warnings"] = warnings;
      rows.append(row);
    }
  }
  return rows;
}

// `dlsim scale JOB --machine M [layout options] [--search --gpus N]
// --format json`: the JSON text.
std::string ScaleJson(const std::string& job_path, const std::string& machine_name,
                      const ScaleRequest& request, std::vector<std::string> given) {
  py::gil_scoped_release release;
  ThrowIfError(CheckScaleRequestApplies(request, GivenIn(std::move(given))));
  const TrainingJob job = ValueOrThrow(LoadTrainingJob(job_path));
  const std::unique_ptr<PricedMachine> m = ValueOrThrow(PricedMachine::Load(machine_name));
  LayoutSearchResult r = ValueOrThrow(RunScaleJob(job, request, *m));
  ScaleReportContext ctx;
  ctx.machine = m->machine().name;
  ctx.train_tokens = job.train_tokens;
  return request.search ? LayoutSearchToJson(r, ctx) : ParallelStepToJson(r.best.front(), ctx);
}

}  // namespace
}  // namespace dlsim::python

PYBIND11_MODULE(_dlsim, m) {
  using namespace dlsim::python;
  m.doc() = "dlsim's compiled core; use the package `dlsim` (estimate, sweep, scale)";
  py::register_exception<StatusError>(m, "Error", PyExc_ValueError);
  m.def("estimate_json", &EstimateJson, py::arg("model"), py::arg("machine"), py::arg("batch"),
        py::arg("inputs"), py::arg("dims"), py::arg("dtype"), py::arg("tf32"), py::arg("mode"),
        py::arg("optimizer"), py::arg("per_tensor_optimizer"), py::arg("gpus"),
        py::arg("strict"), py::arg("fuse"), py::arg("amp"),
        py::arg("checkpoint_activations"), py::arg("layout"), py::arg("zero") = 0, py::arg("recompute") = "none",
        py::arg("given") = std::vector<std::string>{}, py::arg("host") = "", py::arg("loss") = "mean",
        py::arg("inputs_need_grad") = false, "dlsim estimate MODEL --format json, as JSON text");
  m.def(
      "scale_json",
      [](const std::string& job, const std::string& machine, int64_t tensor, int64_t pipeline,
         int64_t data, int64_t virtual_stages, int64_t microbatch, int64_t global_batch,
         const std::string& recompute, const std::string& sequence_parallel, int zero,
         bool overlap_grad_reduce, bool search, int64_t gpus, int top, std::vector<std::string> given,
         int64_t zero_shard) {
        dlsim::ScaleRequest r;
        dlsim::PlanOverrides& o = r.overrides;
        o.tensor = tensor, o.pipeline = pipeline, o.data = data;
        o.virtual_stages = virtual_stages, o.microbatch = microbatch;
        o.global_batch = global_batch, o.recompute = recompute;
        o.sequence_parallel = sequence_parallel, o.zero = zero, o.zero_shard = zero_shard;
        o.overlap_grad_reduce = overlap_grad_reduce;
        r.search = search, r.gpus = gpus, r.top = static_cast<size_t>(top);
        return ScaleJson(job, machine, r, std::move(given));
      },
      py::arg("job"), py::arg("machine"), py::arg("tensor"), py::arg("pipeline"), py::arg("data"),
      py::arg("virtual_stages"), py::arg("microbatch"), py::arg("global_batch"),
      py::arg("recompute"), py::arg("sequence_parallel"), py::arg("zero"),
      py::arg("overlap_grad_reduce"), py::arg("search"), py::arg("gpus"), py::arg("top"),
      py::arg("given") = std::vector<std::string>{}, py::arg("zero_shard") = 0,
      "dlsim scale JOB --format json, as JSON text");
  m.def("sweep_rows", &SweepRows, py::arg("files"), py::arg("machine"), py::arg("grid"),
        py::arg("threads"), "dlsim sweep's CSV rows, as a list of dicts");
}
