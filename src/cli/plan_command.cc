// dlsim plan MODEL.onnx... --batch 1,16 --dtype fp32,fp16: the unique kernel
// keys of the models (Benanza-style job list for dlsim-calibrate).
#include <fstream>
#include <iostream>
#include <sstream>
#include <set>

#include "commands.h"
#include "output_file.h"
#include "dlsim/ops/lowering.h"
#include "model_options.h"

namespace dlsim::cli {
namespace {

struct PlanArgs {
  std::vector<std::string> models;
  std::vector<int64_t> batches;
  std::vector<std::string> dtypes{"fp32"};
  std::vector<std::string> modes{"inference"};
  std::vector<std::string> inputs;  // NAME:D1xD2..., as estimate's --input
  std::vector<std::string> dims;    // NAME=N, as estimate's --dim
  std::string out;
  bool fuse = false;
  bool amp = false;
};

Status PlanOne(const std::string& model, const ModelOptions& mo, std::set<std::string>* keys) {
  DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, ToEstimateOptions(mo));
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadModel(model, mo));
  DLSIM_ASSIGN_OR_RETURN(LoweredGraph lowered, LowerGraph(graph, eo.lowering));
  for (const LoweredNode& ln : lowered.nodes) {
    for (const KernelCall& call : ln.calls) {
      if (ln.known_op) keys->insert(call.Key());
    }
  }
  return Status::Ok();
}

Status RunPlan(const PlanArgs& args) {
  std::set<std::string> keys;
  for (int64_t b : args.batches) {
    if (b <= 0) return InvalidArgument("--batch must be a positive integer, got " + std::to_string(b));
  }
  std::vector<int64_t> batches = args.batches.empty() ? std::vector<int64_t>{0} : args.batches;
  for (const std::string& model : args.models) {
    for (int64_t b : batches) {
      for (const std::string& d : args.dtypes) {
        for (const std::string& m : args.modes) {
          ModelOptions mo;
          mo.batch = b;
          mo.dtype = d;
          mo.mode = m;
          mo.fuse = args.fuse;
          mo.amp = args.amp;
          mo.inputs = args.inputs;
          mo.dims = args.dims;
          Status s = PlanOne(model, mo, &keys);
          if (!s.ok()) return s;
        }
      }
    }
  }
  std::ostringstream out;
  out << "# dlsim plan: " << keys.size() << " unique kernel configurations\n";
  for (const std::string& k : keys) out << k << "\n";
  if (args.out.empty()) {
    std::cout << out.str();
  } else {
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.out, out.str()));
  }
  if (!args.out.empty()) std::cerr << "dlsim plan: wrote " << keys.size() << " keys to " << args.out << "\n";
  return Status::Ok();
}

}  // namespace

void RegisterPlanCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "write the unique kernel configurations of models (a calibration job list)");
  cmd->add_option("models", args->models, "ONNX model files")->required();
  cmd->add_option("--batch", args->batches, "batch sizes (repeat or comma-separate)")->delimiter(',');
  cmd->add_option("--dtype", args->dtypes, "dtypes: fp32, tf32, fp16, bf16")->delimiter(',');
  cmd->add_option("--mode", args->modes, "inference and/or training")->delimiter(',');
  cmd->add_flag("--fuse", args->fuse, "plan fused conv-bias-activation calls too");
  cmd->add_option("--input", args->inputs, "input shape NAME:D1xD2... (repeatable), as in estimate");
  cmd->add_option("--dim", args->dims, "symbolic dim NAME=N (repeatable), as in estimate");
  cmd->add_flag("--amp", args->amp, "torch.autocast: --dtype is the matrix ops' dtype, as in estimate");
  cmd->add_option("--out", args->out, "job list file (default: stdout)");
  cmd->callback([args, exit_code] {
    Status s = RunPlan(*args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
