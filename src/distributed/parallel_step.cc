// One parallel training step (parallel_step.h).
#include "dlsim/distributed/parallel_step.h"

#include <algorithm>
#include <cmath>

#include "dlsim/distributed/gpu_memory.h"
#include "dlsim/distributed/transformer_calls.h"

namespace dlsim {

namespace {

// Priced kernel time of a list of calls, with its P10/P90 and per-source split.
struct Priced {
  double s = 0, p10 = 0, p90 = 0;
  std::array<double, 4> by_source{};
  void Add(const CallCost& c, double times = 1) {
    s += times * c.time_s;
    p10 += times * c.p10_s;
    p90 += times * c.p90_s;
    by_source[static_cast<size_t>(c.source)] += times * c.time_s;
  }
  void Add(const Priced& o, double times) {
    s += times * o.s;
    p10 += times * o.p10;
    p90 += times * o.p90;
    for (size_t i = 0; i < by_source.size(); ++i) by_source[i] += times * o.by_source[i];
  }
};

struct DataParallelTimes {
  double layer_fwd_s = 0, layer_bwd_s = 0;  // one layer, one microbatch
  double layers = 0, microbatches = 0;      // of the stage
};

// What the data-parallel traffic adds to the step. ZeRO 0: an all-reduce of
// the stage's fp32 gradients; 1-2: a reduce-scatter of them and an
// all-gather of the 16-bit weights; both after the pipeline flush, or
// overlapping the last microbatch's backward but for the last layer's
// share. ZeRO 3: per layer and microbatch, the weights gathered for the
// forward and again for the backward, and the gradients reduce-scattered,
// each hidden behind the previous layer's kernels where they are shorter.
double ExposedDataParallelS(const CollectiveModel& comm, const TransformerSpec& m,
                            const ParallelPlan& p, double stage_params, int per_node,
                            const DataParallelTimes& t) {
  const int dp = static_cast<int>(p.data);
  if (dp == 1) return 0;
  if (p.zero_stage >= 3) {
    const double layer = m.LayerParams() / p.tensor;
    const double gather = comm.GroupTime(Collective::kAllGather, dp, per_node, 2 * layer).time_s;
    const double scatter =
        comm.GroupTime(Collective::kReduceScatter, dp, per_node, 4 * layer).time_s;
    const double per_layer = std::max(0.0, gather - t.layer_fwd_s) +
                             std::max(0.0, gather + scatter - t.layer_bwd_s);
    return t.microbatches * (gather + t.layers * per_layer) + scatter;
  }
  double all = 0;
  if (p.zero_stage == 0) {
    all = comm.GroupTime(Collective::kAllReduce, dp, per_node, 4 * stage_params).time_s;
  } else {
    all = comm.GroupTime(Collective::kReduceScatter, dp, per_node, 4 * stage_params).time_s +
          comm.GroupTime(Collective::kAllGather, dp, per_node, 2 * stage_params).time_s;
  }
  if (!p.overlap_grad_reduce && p.zero_stage < 2) return all;
  const double last_bwd = t.layers * t.layer_bwd_s;
  return std::max(all - last_bwd * (1 - 1 / t.layers), all / t.layers);
}

double ActivationBytes(const TransformerSpec& m, const ParallelPlan& p) {
  return static_cast<double>(p.microbatch) * m.seq_len * m.hidden * DTypeBytes(p.dtype);
}

}  // namespace

double ModelFlopsPerStep(const TransformerSpec& m, int64_t global_batch) {
  const double h = static_cast<double>(m.hidden), s = static_cast<double>(m.seq_len);
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f_in = (m.gated_ffn ? 2.0 : 1.0) * m.ffn_hidden;
  // Per token and layer: the four weight products, and QK^T and PV over s keys.
  const double layer = 2 * (h * (h + 2 * kv) + h * h + h * f_in + m.ffn_hidden * h) + 4 * s * h;
  const double head = 2 * h * m.vocab;
  return 3 * static_cast<double>(global_batch) * s * (m.layers * layer + head);
}

ParallelStepModel::ParallelStepModel(const CostModel& cost, const CollectiveModel& comm)
    : cost_(cost), comm_(comm) {}

const CallCost& ParallelStepModel::Price(const KernelCall& call) const {
  const std::string key = call.Key();
  auto it = priced_.find(key);
  if (it != priced_.end()) return it->second;
  return priced_.emplace(key, cost_.Price(call)).first->second;
}

std::vector<ParallelStepModel::PricedCall> ParallelStepModel::MicrobatchCalls(
    const TransformerSpec& m, const ParallelPlan& p) const {
  std::vector<PricedCall> out;
  auto add = [&](const char* part, const PassCalls& pass) {
    for (const auto* list : {&pass.fwd, &pass.recompute, &pass.bwd}) {
      for (const KernelCall& c : *list) out.push_back({part, c, Price(c)});
    }
  };
  add("embedding", EmbeddingCalls(m, p));
  add("layer", TransformerLayerCalls(m, p));
  add("framework", FrameworkLayerCalls(m, p));
  add("head", HeadCalls(m, p));
  const double layers = static_cast<double>(m.layers) / p.pipeline;
  const double params = (layers * m.LayerParams() + m.EmbeddingParams()) / p.tensor;
  PassCalls step;
  step.bwd = DdpStepCalls(m, p);
  step.fwd = OptimizerCalls(p, params / (p.zero_stage >= 1 ? p.data : 1));
  add("step", step);
  return out;
}

Result<ParallelStepEstimate> ParallelStepModel::Estimate(const TransformerSpec& m,
                                                         const ParallelPlan& p) const {
  DLSIM_RETURN_IF_ERROR(ValidateTransformer(m));
  DLSIM_RETURN_IF_ERROR(ValidatePlan(m, p));
  const Machine& machine = cost_.machine();
  const int per_node = std::max(machine.node.gpus_per_node, 1);
  if (p.tensor > per_node) {
    return InvalidArgument("parallel.tensor: tensor parallelism " + std::to_string(p.tensor) +
                           " spans more than one node of " + std::to_string(per_node) +
                           " GPUs (" + machine.source_path + ")");
  }
  ParallelStepEstimate est;
  est.model = m;
  est.plan = p;

  auto price_all = [&](const std::vector<KernelCall>& calls) {
    Priced out;
    for (const KernelCall& c : calls) out.Add(Price(c));
    return out;
  };
  const PassCalls layer = TransformerLayerCalls(m, p);
  const PassCalls own = FrameworkLayerCalls(m, p);
  Priced layer_fwd = price_all(layer.fwd), layer_bwd = price_all(layer.bwd),
         layer_re = price_all(layer.recompute);
  layer_fwd.Add(price_all(own.fwd), 1);
  layer_bwd.Add(price_all(own.bwd), 1);
  layer_re.Add(price_all(own.recompute), 1);
  const PassCalls emb = EmbeddingCalls(m, p), head = HeadCalls(m, p);
  Priced emb_t = price_all(emb.fwd), head_t = price_all(head.fwd);
  emb_t.Add(price_all(emb.bwd), 1);
  head_t.Add(price_all(head.bwd), 1);

  // Tensor-parallel collectives of one layer and microbatch: two in the
  // forward and two in the backward (all-reduces, or with sequence
  // parallelism an all-gather and a reduce-scatter each, the same traffic),
  // again in a full recomputation.
  const int tp = static_cast<int>(p.tensor);
  const double act = ActivationBytes(m, p);
  auto tp_pair = [&]() {
    if (tp == 1) return 0.0;
    if (!p.sequence_parallel) return comm_.GroupTime(Collective::kAllReduce, tp, tp, act).time_s;
    return comm_.GroupTime(Collective::kAllGather, tp, tp, act).time_s +
           comm_.GroupTime(Collective::kReduceScatter, tp, tp, act).time_s;
  };
  const double tp_op = tp_pair();  // one all-reduce (or AG + RS)
  const double passes = p.recompute == Recompute::kFull ? 3 : 2;
  const double tp_layer = 2 * passes * tp_op;
  // Embedding output and head input: one each way; the loss's three small
  // all-reduces of a float per token.
  const double tokens = static_cast<double>(p.microbatch) * m.seq_len;
  const double tp_loss =
      tp > 1 ? 3 * comm_.GroupTime(Collective::kAllReduce, tp, tp, 4 * tokens).time_s : 0;
  const double tp_emb = 2 * tp_op, tp_head = 2 * tp_op + tp_loss;

  // Pipeline sends: activations forward, gradients back, per chunk boundary,
  // split over the tensor-parallel ranks (Megatron's scatter/gather).
  const bool pp_across = p.tensor * p.data >= per_node;
  const double send = p.pipeline > 1 ? comm_.SendTimeS(act / tp, pp_across) : 0;
  const double pp_sends = 2.0 * p.virtual_stages * send;

  const double layers_per_stage = static_cast<double>(m.layers) / p.pipeline;
  std::vector<double> stage_s(p.pipeline);
  Priced busiest;
  double busiest_comm = 0;
  double busiest_re = 0;
  size_t busiest_stage = 0;
  for (int64_t st = 0; st < p.pipeline; ++st) {
    Priced k;
    k.Add(layer_fwd, layers_per_stage);
    k.Add(layer_bwd, layers_per_stage);
    k.Add(layer_re, layers_per_stage);
    double comm = layers_per_stage * tp_layer + pp_sends;
    if (st == 0) k.Add(emb_t, 1), comm += tp_emb;
    if (st == p.pipeline - 1) k.Add(head_t, 1), comm += tp_head;
    stage_s[st] = k.s + comm;
    if (st == 0 || stage_s[st] > stage_s[busiest_stage]) {
      busiest_stage = static_cast<size_t>(st);
      busiest = k;
      busiest_comm = comm;
      busiest_re = layers_per_stage * layer_re.s;
    }
  }
  const double mb = static_cast<double>(p.microbatches());
  const double t_max = stage_s[busiest_stage];
  double t_sum = 0;
  for (double t : stage_s) t_sum += t;
  // 1F1B: m microbatches through the slowest stage, plus the fill and drain
  // of the others; interleaving divides the bubble by the virtual stages.
  const double pipe_s = mb * t_max + (t_sum - t_max) / p.virtual_stages;

  // Data parallelism: fp32 gradients of the stage reduced across replicas
  // (ZeRO 1-2: reduce-scatter, then all-gather of the 16-bit weights).
  const GpuMemory mem = PeakGpuMemory(m, p);
  const double stage_params =
      (layers_per_stage * m.LayerParams() + m.EmbeddingParams()) / p.tensor;
  const int dp_per_node = static_cast<int>(std::clamp<int64_t>(per_node / p.tensor, 1, p.data));
  DataParallelTimes dpt;
  dpt.layer_fwd_s = layer_fwd.s;
  dpt.layer_bwd_s = layer_bwd.s + layer_re.s;
  dpt.layers = layers_per_stage;
  dpt.microbatches = mb;
  const double dp_exposed =
      ExposedDataParallelS(comm_, m, p, stage_params, dp_per_node, dpt);

  const double opt_params = stage_params / (p.zero_stage >= 1 ? p.data : 1);
  Priced opt = price_all(OptimizerCalls(p, opt_params));
  opt.Add(price_all(DdpStepCalls(m, p)), 1);

  StepTimes& t = est.time;
  t.compute_s = mb * (busiest.s - busiest_re);
  t.recompute_s = mb * busiest_re;
  t.tensor_comm_s = mb * (busiest_comm - (p.pipeline > 1 ? pp_sends : 0));
  t.pipeline_comm_s = p.pipeline > 1 ? mb * pp_sends : 0;
  t.bubble_s = pipe_s - mb * t_max;
  t.data_comm_s = dp_exposed;
  t.optimizer_s = opt.s;
  t.step_s = pipe_s + dp_exposed + opt.s;
  const double kernel_s = mb * busiest.s;
  const double rest = t.step_s - kernel_s;
  const double scale = pipe_s / std::max(mb * t_max, 1e-30);  // bubble grows with the stage
  t.p10_step_s = mb * busiest.p10 * scale + (rest - (scale - 1) * kernel_s);
  t.p90_step_s = mb * busiest.p90 * scale + (rest - (scale - 1) * kernel_s);
  for (size_t i = 0; i < 4; ++i) {
    est.source_share[i] = busiest.s > 0 ? busiest.by_source[i] / busiest.s : 0;
  }

  est.memory = mem;
  const double capacity = machine.device.memory_bytes;
  est.fits = capacity <= 0 || mem.total_bytes() <= capacity;
  if (!est.fits) {
    est.warnings.push_back("does not fit: " + std::to_string(mem.total_bytes() / 1073741824.0) +
                           " GiB per GPU of " + std::to_string(capacity / 1073741824.0));
  }
  const double gpus = static_cast<double>(p.gpus());
  est.model_flops = ModelFlopsPerStep(m, p.global_batch);
  const double fwd_flops = est.model_flops / 3;
  double extra = 0;
  if (p.recompute == Recompute::kFull) extra = fwd_flops;
  if (p.recompute == Recompute::kSelective && m.attention == AttentionImpl::kUnfused) {
    extra = static_cast<double>(p.global_batch) * m.seq_len * m.layers * 4.0 * m.seq_len * m.hidden;
  }
  est.hardware_flops = est.model_flops + extra;
  est.model_tflops_per_gpu = est.model_flops / (t.step_s * gpus) / 1e12;
  est.hardware_tflops_per_gpu = est.hardware_flops / (t.step_s * gpus) / 1e12;
  const double peak = p.dtype == DType::kFloat16 ? machine.device.peak_flops.fp16_matrix
                                                 : machine.device.peak_flops.bf16_matrix;
  est.mfu = peak > 0 ? est.model_tflops_per_gpu * 1e12 / peak : 0;
  est.tokens_per_s = static_cast<double>(p.global_batch) * m.seq_len / t.step_s;
  return est;
}

}  // namespace dlsim
