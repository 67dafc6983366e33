#include "dlsim/estimate/estimate_setup.h"

#include <charconv>
#include <optional>

#include "dlsim/machine/machine_io.h"
#include "dlsim/util/loss.h"

namespace dlsim {

Result<int64_t> BatchOf(const ModelOptions& opts) {
  if (!opts.batch_text) {
    if (opts.batch < 0) {
      return InvalidArgument("--batch must be a positive integer, got " +
                             std::to_string(opts.batch));
    }
    return opts.batch;
  }
  const std::string& text = *opts.batch_text;
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value <= 0) {
    return InvalidArgument("--batch must be a positive integer, got '" + text + "'");
  }
  return value;
}

Result<ImportOptions> ToImportOptions(const ModelOptions& opts) {
  ImportOptions io;
  DLSIM_ASSIGN_OR_RETURN(io.batch, BatchOf(opts));
  for (const std::string& spec : opts.inputs) {
    auto parsed = ParseInputSpec(spec);
    if (!parsed.ok()) return parsed.status().WithContext("--input " + spec);
    io.input_shapes[parsed->first] = parsed->second;
  }
  for (const std::string& spec : opts.dims) {
    auto parsed = ParseDimSpec(spec);
    if (!parsed.ok()) return parsed.status().WithContext("--dim " + spec);
    io.named_dims[parsed->first] = parsed->second;
  }
  return io;
}

namespace {

// --recompute, and --checkpoint-activations as its `full`; training only.
Result<Recompute> RecomputeOf(const ModelOptions& opts, bool training) {
  Result<Recompute> parsed = ParseRecompute(opts.recompute);
  if (!parsed.ok()) {
    return InvalidArgument("--recompute must be none, selective or full, got '" + opts.recompute + "'");
  }
  Recompute r = *parsed;
  if (opts.checkpoint_activations) {
    if (r == Recompute::kSelective) {
      return InvalidArgument("--checkpoint-activations is --recompute full: it does not combine with "
                             "--recompute selective");
    }
    r = Recompute::kFull;
  }
  if (r != Recompute::kNone && !training) {
    return InvalidArgument(std::string(opts.checkpoint_activations ? "--checkpoint-activations"
                                                                   : "--recompute") +
                           " is for training: add --mode training");
  }
  return r;
}

}  // namespace

Result<EstimateOptions> ToEstimateOptions(const ModelOptions& opts) {
  EstimateOptions eo;
  LoweringOptions& lo = eo.lowering;
  const std::string& d = opts.dtype;
  const Result<Precision> precision = ParsePrecision(d);
  if (!precision.ok()) {
    return InvalidArgument("--dtype must be fp32, tf32, fp16 or bf16, got '" + d + "'");
  }
  SetPrecision(*precision, &lo);
  if (!opts.tf32.empty()) {
    if (opts.tf32 != "none" && opts.tf32 != "conv" && opts.tf32 != "all") {
      return InvalidArgument("--tf32 must be none, conv or all, got '" + opts.tf32 + "'");
    }
    lo.tf32_conv = opts.tf32 != "none";
    lo.tf32_gemm = opts.tf32 == "all";
    lo.tf32_given = true;
  }
  const std::optional<Mode> mode = ModeFromName(opts.mode);
  if (!mode) return InvalidArgument("--mode must be inference or training, got '" + opts.mode + "'");
  lo.training = *mode == Mode::kTraining;
  if (opts.amp && lo.dtype != DType::kFloat16 && lo.dtype != DType::kBFloat16) {
    return InvalidArgument("--amp needs --dtype fp16 or bf16 (the matrix ops' dtype), got '" + d + "'");
  }
  lo.autocast = opts.amp;
  const std::optional<Optimizer> optimizer = OptimizerFromName(opts.optimizer);
  if (!optimizer) {
    return InvalidArgument("--optimizer must be sgd, sgd_momentum, adam or adamw, got '" + opts.optimizer + "'");
  }
  const std::optional<Loss> loss = LossFromName(opts.loss);
  if (!loss) {
    return InvalidArgument("--loss must be none, mean or cross_entropy, got '" + opts.loss + "'");
  }
  lo.loss = *loss;
  lo.inputs_need_gradient = opts.inputs_need_grad;
  const std::optional<Layout> layout = LayoutFromName(opts.layout);
  if (!layout || *layout == Layout::kNone) {
    return InvalidArgument("--layout must be nchw or nhwc, got '" + opts.layout + "'");
  }
  lo.layout = *layout;
  lo.strict = opts.strict;
  lo.fuse_conv_bias_act = opts.fuse;
  eo.optimizer = *optimizer;
  eo.fused_optimizer = !opts.per_tensor_optimizer;
  DLSIM_ASSIGN_OR_RETURN(eo.recompute, RecomputeOf(opts, lo.training));
  if (opts.gpus < 1 || opts.gpus > 100000) {
    return InvalidArgument("--gpus must be between 1 and 100000, got " + std::to_string(opts.gpus));
  }
  if (opts.gpus > 1 && !lo.training) {
    return InvalidArgument("--gpus " + std::to_string(opts.gpus) +
                           " is for data-parallel training: add --mode training");
  }
  eo.data_parallel.gpus = opts.gpus;
  if (opts.zero < 0 || opts.zero > 3) {
    return InvalidArgument("--zero must be 0, 1, 2 or 3, got " + std::to_string(opts.zero));
  }
  if (opts.zero > 0 && opts.gpus < 2) {
    return InvalidArgument("--zero " + std::to_string(opts.zero) +
                           " shards across data-parallel GPUs: add --gpus N (N >= 2) and --mode training");
  }
  eo.data_parallel.zero_stage = opts.zero;
  eo.precision = *precision;
  DLSIM_ASSIGN_OR_RETURN(eo.batch, BatchOf(opts));
  return eo;
}

Result<Graph> LoadModel(const std::string& path, const ModelOptions& opts) {
  DLSIM_ASSIGN_OR_RETURN(ImportOptions io, ToImportOptions(opts));
  return LoadOnnxModel(path, io);
}

Result<Machine> LoadMachineWithHost(const std::string& machine, const std::string& host_profile) {
  DLSIM_ASSIGN_OR_RETURN(Machine m, LoadMachine(ResolveMachinePath(machine)));
  if (!host_profile.empty()) {
    DLSIM_ASSIGN_OR_RETURN(m.host, LoadHostProfile(host_profile));
  }
  return m;
}

Result<EstimateSetup> LoadEstimateSetup(const std::string& model, const ModelOptions& opts,
                                        const std::string& machine) {
  DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, ToEstimateOptions(opts));
  DLSIM_ASSIGN_OR_RETURN(Machine m, LoadMachineWithHost(machine, opts.host_profile));
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadModel(model, opts));
  DLSIM_ASSIGN_OR_RETURN(CostModel cost, CostModel::ForMachine(m));
  if (eo.batch == 0 && !graph.inputs.empty()) {
    const Tensor* in = graph.FindTensor(graph.inputs[0]);
    if (in != nullptr && !in->dims.empty()) eo.batch = in->dims[0];
  }
  return EstimateSetup{std::move(m), std::move(graph), std::move(cost), std::move(eo)};
}

}  // namespace dlsim
