// A large-model training job described without an ONNX graph (docs/parallel.md,
// "Training at scale"): the transformer's shape and the parallel layout it is
// trained with. Read from a job YAML (training_job_io.h) or the command line;
// priced by src/distributed.
#ifndef DLSIM_MACHINE_TRAINING_JOB_H_
#define DLSIM_MACHINE_TRAINING_JOB_H_

#include <cstdint>
#include <string>

#include "dlsim/util/dtype.h"
#include "dlsim/util/recompute.h"
#include "dlsim/util/status.h"

namespace dlsim {

// How attention runs: one fused kernel (FlashAttention, PyTorch SDPA) or
// Megatron's unfused chain (QK^T batched GEMM, fused scale-mask-softmax, PV).
enum class AttentionImpl { kFlash, kUnfused };
const char* AttentionImplName(AttentionImpl impl);  // "flash", "unfused"
Result<AttentionImpl> ParseAttentionImpl(const std::string& name);

// A GPT-style decoder: pre-LayerNorm blocks of self-attention and an MLP,
// a token embedding, a final LayerNorm and a vocabulary head.
struct TransformerSpec {
  std::string name;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;    // grouped-query attention; = heads when absent
  int64_t ffn_hidden = 0;  // 4 hidden when absent
  bool gated_ffn = false;  // SwiGLU (Llama): two input projections
  int64_t vocab = 0;
  int64_t seq_len = 0;
  bool tied_embeddings = true;  // the head reuses the embedding matrix
  AttentionImpl attention = AttentionImpl::kFlash;

  int64_t head_dim() const { return hidden / heads; }
  // Weights and biases of one block, of the embedding, of the whole model.
  double LayerParams() const;
  double EmbeddingParams() const;
  double Params() const;
};

// Whose training loop runs the plan. Megatron-LM: 16-bit weights with fp32
// main gradients filled by the weight-gradient GEMMs, a fused Adam.
// PyTorch: fp32 weights under torch.autocast (a cast of every weight in each
// forward, of its gradient back in each backward), DDP's bucket copies,
// FSDP's gather and scatter copies, AdamW's foreach passes.
enum class TrainingFramework { kMegatron, kPyTorch };
const char* TrainingFrameworkName(TrainingFramework f);  // "megatron", "pytorch"

// The parallel layout: tensor (Megatron column/row split), pipeline (1F1B,
// interleaved when virtual_stages > 1) and data parallelism, with ZeRO
// sharding of the data-parallel replicas (1: optimizer state, 2: and
// gradients, 3: and weights, as FSDP's full sharding). With `zero_shard`,
// each shard spans that many data-parallel GPUs and the shards are
// replicated across the rest (FSDP's and DeepSpeed's hybrid sharding):
// gathers and reduce-scatters inside a shard group, then an all-reduce of
// each GPU's gradient shard across the replicas.
struct ParallelPlan {
  int64_t tensor = 1;
  int64_t pipeline = 1;
  int64_t data = 1;
  int64_t virtual_stages = 1;
  int64_t microbatch = 1;    // sequences per microbatch
  int64_t global_batch = 1;  // sequences per step, all replicas
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  int zero_stage = 0;
  int64_t zero_shard = 0;  // data-parallel GPUs one shard spans; 0 = all of them
  // The data-parallel gradient reduction overlaps the last microbatch's
  // backward (PyTorch DDP, Megatron --overlap-grad-reduce); otherwise it
  // runs after the pipeline flush.
  bool overlap_grad_reduce = false;
  DType dtype = DType::kBFloat16;  // mixed precision: fp32 master weights, Adam
  TrainingFramework framework = TrainingFramework::kMegatron;

  int64_t gpus() const { return tensor * pipeline * data; }
  int64_t microbatches() const { return global_batch / (microbatch * data); }
  // What ZeRO divides the state by, and how many copies of it there are.
  int64_t shard_ranks() const { return zero_shard > 0 ? zero_shard : data; }
  int64_t shard_replicas() const { return data / shard_ranks(); }
};

// Errors name the field: divisibility of heads, layers and batch by the
// layout, positive sizes.
Status ValidateTransformer(const TransformerSpec& spec);
Status ValidatePlan(const TransformerSpec& spec, const ParallelPlan& plan);

struct TrainingJob {
  TransformerSpec model;
  ParallelPlan plan;
  double train_tokens = 0;  // tokens to train on (time to train), 0 = none
  std::string source_path;
};

}  // namespace dlsim

#endif  // DLSIM_MACHINE_TRAINING_JOB_H_
