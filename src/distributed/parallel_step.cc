// One parallel training step (parallel_step.h).
#include "dlsim/distributed/parallel_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu_memory.h"
#include "transformer_calls.h"

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
// Hybrid sharding: the gathers and reduce-scatters span a shard group, and
// each reduce-scatter is followed by an all-reduce of the GPU's gradient
// shard across the group's replicas.
double ExposedDataParallelS(const CollectiveModel& comm, const TransformerSpec& m,
                            const ParallelPlan& p, double stage_params, int per_node,
                            const DataParallelTimes& t) {
  const int dp = static_cast<int>(p.data);
  if (dp == 1) return 0;
  // Data-parallel ranks are consecutive inside a node: a shard group takes
  // up to a node's share, its replicas stride across nodes.
  const int shard = static_cast<int>(p.shard_ranks());
  const int replicas = static_cast<int>(p.shard_replicas());
  const int shard_per_node = std::min(shard, per_node);
  const int replicas_per_node = std::clamp(per_node / shard, 1, replicas);
  auto replica_all_reduce = [&](double grad_bytes) {
    return comm.GroupTime(Collective::kAllReduce, replicas, replicas_per_node, grad_bytes / shard)
        .time_s;
  };
  if (p.zero_stage >= 3) {
    const double layer = m.LayerParams() / p.tensor;
    const double gather =
        comm.GroupTime(Collective::kAllGather, shard, shard_per_node, 2 * layer).time_s;
    const double scatter =
        comm.GroupTime(Collective::kReduceScatter, shard, shard_per_node, 4 * layer).time_s +
        replica_all_reduce(4 * layer);
    const double per_layer = std::max(0.0, gather - t.layer_fwd_s) +
                             std::max(0.0, gather + scatter - t.layer_bwd_s);
    return t.microbatches * (gather + t.layers * per_layer) + scatter;
  }
  double all = 0;
  if (p.zero_stage == 0) {
    all = comm.GroupTime(Collective::kAllReduce, dp, per_node, 4 * stage_params).time_s;
  } else {
    all = comm.GroupTime(Collective::kReduceScatter, shard, shard_per_node, 4 * stage_params)
              .time_s +
          replica_all_reduce(4 * stage_params) +
          comm.GroupTime(Collective::kAllGather, shard, shard_per_node, 2 * stage_params).time_s;
  }
  if (!p.overlap_grad_reduce && p.zero_stage < 2) return all;
  const double last_bwd = t.layers * t.layer_bwd_s;
  return std::max(all - last_bwd * (1 - 1 / t.layers), all / t.layers);
}

// The once-a-step calls: the optimizer over the GPU's share of the busier
// stage's parameters (1 / shard with ZeRO), DDP's passes, and gradient
// accumulation over the microbatches.
struct StepCalls {
  std::vector<RepeatedCalls> optimizer;
  RepeatedCalls ddp, accumulate;
};

StepCalls StepCallsOf(const TransformerSpec& m, const ParallelPlan& p) {
  const double params = StageParamsPerGpu(m, p);
  StepCalls s;
  s.optimizer = OptimizerCalls(p, params / (p.zero_stage >= 1 ? p.shard_ranks() : 1));
  s.ddp = DdpStepCalls(m, p);
  s.accumulate = GradAccumulationCalls(p, params);
  return s;
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
  const StepCalls once = StepCallsOf(m, p);
  PassCalls step;  // each listed once; each runs its RepeatedCalls' times
  step.bwd = once.ddp.calls;
  step.bwd.insert(step.bwd.end(), once.accumulate.calls.begin(), once.accumulate.calls.end());
  for (const RepeatedCalls& r : once.optimizer) {
    step.fwd.insert(step.fwd.end(), r.calls.begin(), r.calls.end());
  }
  add("step", step);
  return out;
}

namespace {

// Kernel time of one microbatch: a layer's passes, the embedding, the head.
struct PartTimes {
  Priced layer_fwd, layer_bwd, layer_re, embedding, head;
};

// Seconds of the collectives and sends one stage makes per microbatch.
struct CommTimes {
  double per_layer = 0;  // tensor-parallel, one layer
  double embedding = 0;  // tensor-parallel, first stage
  double head = 0;       // tensor-parallel, last stage
  double sends = 0;      // pipeline, every stage
};

// Tensor-parallel collectives of one layer and microbatch: two in the
// forward and two in the backward (all-reduces, or with sequence
// parallelism an all-gather and a reduce-scatter each, the same traffic),
// again in a full recomputation; the embedding's output and the head's
// input one each way, and the loss's three small all-reduces of a float per
// token. Pipeline sends: activations forward and gradients back at every
// chunk boundary, split over the tensor-parallel ranks (Megatron's
// scatter/gather), across nodes when stages are a node or more apart.
CommTimes CommOf(const CollectiveModel& comm, const TransformerSpec& m, const ParallelPlan& p,
                 int per_node) {
  CommTimes c;
  const int tp = static_cast<int>(p.tensor);
  const double act = ActivationBytes(m, p);
  double op = 0;  // one all-reduce, or all-gather + reduce-scatter
  if (tp > 1 && !p.sequence_parallel) {
    op = comm.GroupTime(Collective::kAllReduce, tp, tp, act).time_s;
  } else if (tp > 1) {
    op = comm.GroupTime(Collective::kAllGather, tp, tp, act).time_s +
         comm.GroupTime(Collective::kReduceScatter, tp, tp, act).time_s;
  }
  const double passes = p.recompute == Recompute::kFull ? 3 : 2;
  c.per_layer = 2 * passes * op;
  const double tokens = static_cast<double>(p.microbatch) * m.seq_len;
  const double loss =
      tp > 1 ? 3 * comm.GroupTime(Collective::kAllReduce, tp, tp, 4 * tokens).time_s : 0;
  // Megatron's f and g: the embedding's all-reduce in the forward only, the
  // head's in the backward only.
  c.embedding = op;
  c.head = op + loss;
  if (p.pipeline > 1) {
    // Neighbouring stages are tensor x data ranks apart: on other nodes when
    // that is a node or more, the whole pipeline over gpus / node nodes.
    const bool across = p.tensor * p.data >= per_node;
    const int64_t nodes = across ? (p.gpus() + per_node - 1) / per_node : 1;
    c.sends = 2.0 * p.virtual_stages *
              comm.SendTimeS(act / tp, static_cast<int>(std::min<int64_t>(nodes, 1 << 30)));
  }
  return c;
}

// The pipeline: each stage's time per microbatch, the slowest one's parts.
struct Pipeline {
  double step_s = 0;     // m t_max + (sum - t_max) / v
  double t_max = 0;      // the slowest stage, per microbatch
  Priced busiest;        // its kernels
  double busiest_comm = 0;
  double busiest_re = 0;
};

Pipeline PipelineOf(const TransformerSpec& m, const ParallelPlan& p, const PartTimes& k,
                    const CommTimes& c) {
  const double layers = static_cast<double>(m.layers) / p.pipeline;
  Pipeline out;
  double sum = 0;
  for (int64_t st = 0; st < p.pipeline; ++st) {
    Priced kernels;
    kernels.Add(k.layer_fwd, layers);
    kernels.Add(k.layer_bwd, layers);
    kernels.Add(k.layer_re, layers);
    double comm = layers * c.per_layer + c.sends;
    if (st == 0) kernels.Add(k.embedding, 1), comm += c.embedding;
    if (st == p.pipeline - 1) kernels.Add(k.head, 1), comm += c.head;
    const double t = kernels.s + comm;
    sum += t;
    if (st == 0 || t > out.t_max) {
      out.t_max = t;
      out.busiest = kernels;
      out.busiest_comm = comm;
      out.busiest_re = layers * k.layer_re.s;
    }
  }
  // 1F1B: m microbatches through the slowest stage, plus the fill and drain
  // of the others; interleaving divides the bubble by the virtual stages.
  out.step_s = static_cast<double>(p.microbatches()) * out.t_max +
               (sum - out.t_max) / p.virtual_stages;
  return out;
}

void FillThroughput(const Machine& machine, ParallelStepEstimate* est) {
  const TransformerSpec& m = est->model;
  const ParallelPlan& p = est->plan;
  const double step = est->time.step_s, gpus = static_cast<double>(p.gpus());
  est->model_flops = ModelFlopsPerStep(m, p.global_batch);
  double extra = 0;  // recomputed FLOPs
  if (p.recompute == Recompute::kFull) extra = est->model_flops / 3;
  if (p.recompute == Recompute::kSelective && m.attention == AttentionImpl::kUnfused) {
    extra = static_cast<double>(p.global_batch) * m.seq_len * m.layers * 4.0 * m.seq_len * m.hidden;
  }
  est->hardware_flops = est->model_flops + extra;
  est->model_tflops_per_gpu = est->model_flops / (step * gpus) / 1e12;
  est->hardware_tflops_per_gpu = est->hardware_flops / (step * gpus) / 1e12;
  const double peak = p.dtype == DType::kFloat16 ? machine.device.peak_flops.fp16_matrix
                                                 : machine.device.peak_flops.bf16_matrix;
  est->mfu = peak > 0 ? est->model_tflops_per_gpu * 1e12 / peak : 0;
  est->tokens_per_s = static_cast<double>(p.global_batch) * m.seq_len / step;
}

void FillMemory(const Machine& machine, ParallelStepEstimate* est) {
  est->memory = PeakGpuMemory(est->model, est->plan);
  const double capacity = machine.device.memory_bytes;
  est->fits = capacity <= 0 || est->memory.total_bytes() <= capacity;
  if (!est->fits) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "does not fit: %.1f GiB per GPU of %.1f GiB (%s)",
                  est->memory.total_bytes() / 1073741824.0, capacity / 1073741824.0,
                  machine.name.c_str());
    est->warnings.push_back(buf);
  }
}

}  // namespace

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
  if (p.gpus() > 1 && !(machine.node.scale_up.bw_bytes_per_s > 0)) {
    return InvalidArgument(machine.source_path + ": node.scale_up gives no bandwidth between GPUs, "
                           "which a plan of " + std::to_string(p.gpus()) + " GPUs needs");
  }
  ParallelStepEstimate est;
  est.model = m;
  est.plan = p;
  auto price_all = [&](const std::vector<KernelCall>& calls) {
    Priced out;
    for (const KernelCall& c : calls) out.Add(Price(c));
    return out;
  };
  auto price_pass = [&](const PassCalls& a, const PassCalls& b, Priced* fwd, Priced* bwd,
                        Priced* re) {
    *fwd = price_all(a.fwd), *bwd = price_all(a.bwd), *re = price_all(a.recompute);
    fwd->Add(price_all(b.fwd), 1), bwd->Add(price_all(b.bwd), 1), re->Add(price_all(b.recompute), 1);
  };
  PartTimes k;
  price_pass(TransformerLayerCalls(m, p), FrameworkLayerCalls(m, p), &k.layer_fwd, &k.layer_bwd,
             &k.layer_re);
  const PassCalls emb = EmbeddingCalls(m, p), head = HeadCalls(m, p);
  k.embedding = price_all(emb.fwd), k.head = price_all(head.fwd);
  k.embedding.Add(price_all(emb.bwd), 1);
  k.head.Add(price_all(head.bwd), 1);
  const CommTimes c = CommOf(comm_, m, p, per_node);
  const Pipeline pipe = PipelineOf(m, p, k, c);

  const double mb = static_cast<double>(p.microbatches());
  const double layers = static_cast<double>(m.layers) / p.pipeline;
  const double stage_params = StageParamsPerGpu(m, p);
  const int dp_per_node = static_cast<int>(std::clamp<int64_t>(per_node / p.tensor, 1, p.data));
  DataParallelTimes dpt;
  dpt.layer_fwd_s = k.layer_fwd.s;
  dpt.layer_bwd_s = k.layer_bwd.s + k.layer_re.s;
  dpt.layers = layers;
  dpt.microbatches = mb;
  const double dp_exposed = ExposedDataParallelS(comm_, m, p, stage_params, dp_per_node, dpt);
  const StepCalls once = StepCallsOf(m, p);
  Priced opt, accumulate;
  for (const RepeatedCalls& r : once.optimizer) opt.Add(price_all(r.calls), r.times);
  opt.Add(price_all(once.ddp.calls), once.ddp.times);
  accumulate.Add(price_all(once.accumulate.calls), once.accumulate.times);

  StepTimes& t = est.time;
  t.compute_s = mb * (pipe.busiest.s - pipe.busiest_re) + accumulate.s;
  t.recompute_s = mb * pipe.busiest_re;
  t.tensor_comm_s = mb * (pipe.busiest_comm - (p.pipeline > 1 ? c.sends : 0));
  t.pipeline_comm_s = p.pipeline > 1 ? mb * c.sends : 0;
  t.bubble_s = pipe.step_s - mb * pipe.t_max;
  t.data_comm_s = dp_exposed;
  t.optimizer_s = opt.s;
  t.step_s = pipe.step_s + dp_exposed + opt.s + accumulate.s;
  // The kernels' bands carried to the step (the bubble grows with the stage).
  const double kernel_s = mb * pipe.busiest.s, rest = t.step_s - kernel_s;
  const double scale = pipe.step_s / std::max(mb * pipe.t_max, 1e-30);
  t.p10_step_s = mb * pipe.busiest.p10 * scale + (rest - (scale - 1) * kernel_s);
  t.p90_step_s = mb * pipe.busiest.p90 * scale + (rest - (scale - 1) * kernel_s);
  for (size_t i = 0; i < 4; ++i) {
    est.source_share[i] = pipe.busiest.s > 0 ? pipe.busiest.by_source[i] / pipe.busiest.s : 0;
  }
  FillMemory(machine, &est);
  FillThroughput(machine, &est);
  return est;
}

}  // namespace dlsim
