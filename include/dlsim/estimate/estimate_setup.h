// What a front end (the dlsim command, the Python module) starts an estimate
// from: model options as the user typed them (--batch, --input, --dim,
// --dtype, --tf32, --mode, ...), checked and turned into import and estimator
// options, and the machine, model and cost model loaded from them. The error
// messages name the options as the command line spells them.
#ifndef DLSIM_ESTIMATE_ESTIMATE_SETUP_H_
#define DLSIM_ESTIMATE_ESTIMATE_SETUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine.h"
#include "dlsim/model/graph.h"
#include "dlsim/model/onnx_import.h"
#include "dlsim/util/option_rules.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct ModelOptions {
  int64_t batch = 0;                // 0: the model's own batch (unless --batch was given)
  std::optional<std::string> batch_text;  // --batch as typed; BatchOf() parses it
  std::vector<std::string> inputs;  // NAME:D1xD2...
  std::vector<std::string> dims;    // NAME=N
  std::string dtype = "fp32";
  std::string tf32 = "";            // none|conv|all; "" = the dtype's default
  std::string mode = "inference";
  std::string optimizer = "sgd_momentum";
  std::string loss = "mean";          // training: none, mean, cross_entropy
  bool per_tensor_optimizer = false;  // default: multi-tensor (foreach) launches
  bool inputs_need_grad = false;      // training: a block exported alone (gradient_flow.h)
  int gpus = 1;                       // data-parallel GPUs (training)
  int zero = 0;                       // ZeRO stage over those GPUs (0-3)
  bool strict = false;
  bool fuse = false;
  bool amp = false;                   // torch.autocast: --dtype is the matrix ops' dtype
  bool checkpoint_activations = false;  // training: --recompute full, as a flag
  std::string recompute = "none";       // training: none, selective or full
  std::string layout = "nchw";
  std::string host_profile;             // --host FILE: replaces the machine's host section
};

// The batch to use: --batch parsed strictly (a positive integer; "0", "" and
// "-3" are errors), else `batch` (0: the model's own).
Result<int64_t> BatchOf(const ModelOptions& opts);
// The model options that have no effect with the others: --tf32 with
// --dtype fp16 or bf16, --optimizer, --per-tensor-optimizer, --loss and --inputs-need-grad outside
// training (`given` says which options were given; --mode not given is
// inference, the default).
Status CheckModelOptionsApply(const ModelOptions& opts, const OptionGiven& given);
// Validates and converts to import options.
Result<ImportOptions> ToImportOptions(const ModelOptions& opts);
// Validates and converts to estimator options.
Result<EstimateOptions> ToEstimateOptions(const ModelOptions& opts);
// Loads the model with the options' shapes.
Result<Graph> LoadModel(const std::string& path, const ModelOptions& opts);

// What estimate, analyze and compare start from: the machine (a file or a
// bundled name), the model, the machine's cost model and estimator options
// whose batch defaults to the model's first input's leading dim.
// The machine of --machine (a file or a bundled name), its host section
// replaced by the --host profile when `host_profile` is not empty.
Result<Machine> LoadMachineWithHost(const std::string& machine, const std::string& host_profile);

struct EstimateSetup {
  Machine machine;
  Graph graph;
  CostModel cost;
  EstimateOptions options;
};
Result<EstimateSetup> LoadEstimateSetup(const std::string& model, const ModelOptions& opts,
                                        const std::string& machine);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_ESTIMATE_SETUP_H_
