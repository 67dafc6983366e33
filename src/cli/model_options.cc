#include "model_options.h"

namespace dlsim::cli {

void AddModelOptions(CLI::App* cmd, ModelOptions* opts, bool with_training) {
  // Read as text: CLI11 turns "" into 0 for integers, which means "the model's batch".
  cmd->add_option_function<std::string>(
      "--batch", [opts](const std::string& text) { opts->batch_text = text; },
      "batch size (sets dim 0 of every input)");
  cmd->add_option("--input", opts->inputs, "input shape NAME:D1xD2x... (repeatable)");
  cmd->add_option("--dim", opts->dims,
                  "a symbolic input dim by name, NAME=N (e.g. seq=2048; repeatable)");
  cmd->add_option("--dtype", opts->dtype, "fp32 (PyTorch default: TF32 convs), tf32, fp16, bf16")
      ->capture_default_str();
  cmd->add_option("--tf32", opts->tf32, "TF32 use for fp32: none, conv, all");
  cmd->add_option("--layout", opts->layout, "nchw or nhwc")->capture_default_str();
  cmd->add_flag("--strict", opts->strict, "unknown ops are errors, not warnings");
  cmd->add_flag("--amp", opts->amp,
                "mixed precision as torch.autocast: matrix ops in --dtype (fp16 or bf16); "
                "weights, inputs, optimizer and autocast's fp32 ops stay fp32, with the casts");
  cmd->add_flag("--fuse", opts->fuse,
                "fuse Conv+Relu into cudnnConvolutionBiasActivationForward");
  if (with_training) {
    cmd->add_option("--mode", opts->mode, "inference or training")->capture_default_str();
    cmd->add_option("--optimizer", opts->optimizer, "sgd, sgd_momentum, adam, adamw")
        ->capture_default_str();
    cmd->add_option("--loss", opts->loss,
                    "training: the loss over the model's first output, none, mean "
                    "(output.float().mean()) or cross_entropy (over its last axis)")
        ->capture_default_str();
    cmd->add_option("--recompute", opts->recompute,
                    "training: activation recomputation, none, selective (the attention cores: "
                    "QK^T, softmax, P.V run again in the backward, their score matrices not kept) "
                    "or full (saved activations only at layer boundaries, each layer's forward "
                    "run again) (docs/memory.md)")
        ->capture_default_str();
    cmd->add_flag("--checkpoint-activations", opts->checkpoint_activations,
                  "training: --recompute full (activation checkpointing of every layer)");
    cmd->add_flag("--inputs-need-grad", opts->inputs_need_grad,
                  "training: the model's float inputs carry gradients, as those of a block "
                  "exported alone from a larger model (default: none, as a whole model's; "
                  "PyTorch then computes no gradient of the first layer's input)");
    cmd->add_flag("--per-tensor-optimizer", opts->per_tensor_optimizer,
                  "one optimizer launch per parameter tensor (default: multi-tensor/foreach)");
    cmd->add_option("--gpus", opts->gpus,
                    "training: data-parallel GPUs; gradients all-reduced in buckets "
                    "overlapped with backward (docs/parallel.md)")
        ->capture_default_str();
    cmd->add_option("--zero", opts->zero,
                    "training with --gpus: ZeRO sharding across them, 1 optimizer state, 2 and "
                    "gradients, 3 and weights (FSDP full sharding) (docs/memory.md)")
        ->capture_default_str();
  }
}

void AddHostOption(CLI::App* cmd, ModelOptions* opts) {
  cmd->add_option("--host", opts->host_profile,
                  "host profile YAML (what `dlsim-calibrate host` writes): the host's eager "
                  "dispatch costs, in place of the machine file's host section")
      ->type_name("FILE");
}

}  // namespace dlsim::cli
