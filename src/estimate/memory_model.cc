#include "dlsim/estimate/memory_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "checkpoint_segments.h"
#include "saved_tensors.h"

namespace dlsim {

double AllocatorBlockBytes(double bytes) {
  if (bytes <= 0) return 0;
  return std::max(512.0, std::ceil(bytes / 512.0) * 512.0);
}

namespace {

// One block of device memory: alive over steps [start, end].
struct Buffer {
  double bytes = 0;
  long producer = -1;  // node index; -1 for graph inputs
  long start = 0;
  long last_read = -1;
  long first_saver = -1;  // the first node that saves it for backward
  bool requires_grad = false;
  bool is_cast = false;  // an autocast copy, read by its producer only
};

// Step numbers: node i's forward runs at step i, its backward at 2n-1-i,
// the optimizer at 2n.
class Simulator {
 public:
  Simulator(const Graph& graph, const LoweredGraph& lowered, const MemoryOptions& options)
      : graph_(graph), lowered_(lowered), options_(options),
        n_(static_cast<long>(graph.nodes.size())),
        scalar_constants_(ScalarConstants(graph)) {}

  MemoryFootprint Run() {
    if (options_.training && options_.recompute != Recompute::kNone) {
      segment_ = CheckpointSegments(graph_, lowered_, options_.recompute);
      for (size_t i = 0; i < segment_.size(); ++i) {
        if (segment_[i] >= 0) segment_end_[segment_[i]] = static_cast<long>(i);
      }
    }
    AddGraphInputs();
    for (long i = 0; i < n_; ++i) Forward(i);
    for (const std::string& out : graph_.outputs) Read(Root(out), n_ - 1);
    return Peak();
  }

 private:
  long Backward(long i) const { return 2 * n_ - 1 - i; }
  long LastStep() const { return options_.training ? 2 * n_ : n_ - 1; }

  double ElemBytes(const Tensor& t) const {
    if (!IsFloatDType(t.dtype) || t.dtype == DType::kFloat64) return DTypeBytes(t.dtype);
    if (!options_.autocast) return DTypeBytes(options_.dtype);
    auto it = lowered_.autocast_dtype.find(t.name);
    return DTypeBytes(it == lowered_.autocast_dtype.end() ? DType::kFloat32 : it->second);
  }
  double WeightElemBytes() const {
    return options_.autocast ? 4.0 : static_cast<double>(DTypeBytes(options_.dtype));
  }
  bool IsParameter(const std::string& name) const {
    const Tensor* t = graph_.FindTensor(name);
    return t != nullptr && t->is_initializer && IsFloatDType(t->dtype);
  }
  // An initializer of one element that only elementwise arithmetic reads is
  // taken for a constant an exporter wrote (a scale, an exponent, an
  // epsilon, a fill value), not a trained parameter: the ops that read it
  // keep nothing for its gradient.
  static std::set<std::string> ScalarConstants(const Graph& graph) {
    static const std::set<std::string> kArithmetic = {"Add", "Sub", "Mul", "Div", "Pow", "Where",
                                                      "Max", "Min", "Clip", "Equal", "Less",
                                                      "Greater", "LessOrEqual", "GreaterOrEqual"};
    std::set<std::string> scalars, other;
    for (const Node& node : graph.nodes) {
      for (const std::string& in : node.inputs) {
        const Tensor* t = graph.FindTensor(in);
        if (t == nullptr || !t->is_initializer || t->num_elements() != 1) continue;
        (kArithmetic.count(node.op_type) != 0 ? scalars : other).insert(in);
      }
    }
    for (const std::string& name : other) scalars.erase(name);
    return scalars;
  }
  bool RequiresGrad(const std::string& name) const {
    if (!options_.training || name.empty()) return false;
    if (IsParameter(name)) return scalar_constants_.count(name) == 0;
    auto it = grad_.find(name);
    return it != grad_.end() && it->second;
  }
  std::string Root(const std::string& name) const {
    auto it = root_.find(name);
    return it == root_.end() ? "" : it->second;
  }
  void Read(const std::string& root, long step) {
    if (root.empty()) return;
    Buffer& b = buffers_[root];
    b.last_read = std::max(b.last_read, step);
  }

  void AddGraphInputs() {
    for (const std::string& name : graph_.inputs) {
      const Tensor* t = graph_.FindTensor(name);
      if (t == nullptr || t->is_initializer) continue;
      Buffer b;
      b.bytes = AllocatorBlockBytes(static_cast<double>(t->num_elements()) * ElemBytes(*t));
      b.last_read = LastStep();
      buffers_[name] = b;
      root_[name] = name;
    }
  }

  // A node that launches no kernel of its own (a view, a node folded into a
  // fused group) writes nothing: its float outputs share its input's block.
  bool Materialises(const LoweredNode& ln) const {
    size_t fwd = 0;
    for (const KernelCall& c : ln.calls) fwd += c.phase == Phase::kForward;
    return fwd > ln.casts.size();
  }

  const InputCast* CastOf(const LoweredNode& ln, const std::string& name) const {
    for (const InputCast& c : ln.casts) {
      if (c.tensor == name) return &c;
    }
    return nullptr;
  }

  // The block node `i` reads for input `name`: its autocast copy (made by
  // the node, or for a fused group by one of its nodes) or the root.
  std::string ReadBlock(long i, const std::string& name) const {
    const LoweredNode& ln = lowered_.nodes[i];
    if (CastOf(ln, name) != nullptr) return name + "@cast" + std::to_string(i);
    for (size_t k : ln.fused_nodes) {
      if (CastOf(lowered_.nodes[k], name) != nullptr) return name + "@cast" + std::to_string(k);
    }
    return Root(name);
  }

  void AddCasts(long i) {
    for (const InputCast& c : lowered_.nodes[i].casts) {
      const Tensor* t = graph_.FindTensor(c.tensor);
      if (t == nullptr) continue;
      Buffer b;
      b.bytes = AllocatorBlockBytes(static_cast<double>(t->num_elements()) * DTypeBytes(c.to));
      b.producer = b.start = i;
      // autocast's cache holds a weight's copy until the forward ends
      b.last_read = options_.training && IsParameter(c.tensor) ? n_ - 1 : i;
      b.requires_grad = RequiresGrad(c.tensor);
      b.is_cast = true;
      buffers_[c.tensor + "@cast" + std::to_string(i)] = b;
    }
  }

  void Forward(long i) {
    const Node& node = graph_.nodes[i];
    const LoweredNode& ln = lowered_.nodes[i];
    AddCasts(i);
    bool any_grad = false;
    std::string first_root;
    for (const std::string& in : node.inputs) {
      if (in.empty()) continue;
      any_grad = any_grad || RequiresGrad(in);
      if (IsParameter(in) && scalar_constants_.count(in) == 0) param_last_read_[in] = i;
      if (node.op_type == "Shape" || node.op_type == "Size") continue;  // metadata only
      const std::string block = ReadBlock(i, in);
      Read(block, i);
      const Tensor* t = graph_.FindTensor(in);
      if (first_root.empty() && t != nullptr && IsFloatDType(t->dtype)) first_root = Root(in);
    }
    const bool writes = Materialises(ln);
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      grad_[out] = any_grad;
      const Tensor* t = graph_.FindTensor(out);
      if (t == nullptr) continue;
      if (!writes) {
        if (IsFloatDType(t->dtype) && !first_root.empty()) root_[out] = first_root;
        continue;
      }
      Buffer b;
      b.bytes = AllocatorBlockBytes(static_cast<double>(t->num_elements()) * ElemBytes(*t));
      b.producer = b.start = b.last_read = i;
      b.requires_grad = any_grad;
      buffers_[out] = b;
      root_[out] = out;
    }
    if (writes && any_grad) Save(i);
    if (writes) AddConvWorkspace(i);
    if (writes) AddRecurrentWorkspace(i);
  }

  static bool IsRecurrent(const Node& node) {
    return node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN";
  }

  // cuDNN's RNN workspace, fitted on the corpus calibration side (5 models,
  // fp32 and fp16/bf16): while the layers run, 8 MiB a layer, a copy of the
  // layers' weights and half the gate pre-activations of every layer and
  // time step; in their backward also the weights' gradient buffer.
  void AddRecurrentWorkspace(long i) {
    const LoweredNode& ln = lowered_.nodes[i];
    std::vector<size_t> layers = ln.fused_op == FusedOp::kRnnStack ? ln.fused_nodes
                                                                   : std::vector<size_t>{size_t(i)};
    double fixed = 0, weights = 0, gates = 0;
    for (size_t l : layers) {
      const Node& layer = graph_.nodes[l];
      if (!IsRecurrent(layer) || layer.outputs.empty()) continue;
      fixed += 8.0 * (1 << 20);
      for (size_t k = 1; k < std::min<size_t>(4, layer.inputs.size()); ++k) {
        const Tensor* w = graph_.FindTensor(layer.inputs[k]);
        if (w != nullptr) weights += static_cast<double>(w->num_elements()) * ElemBytes(*w);
      }
      const Tensor* y = graph_.FindTensor(layer.outputs[0]);
      const double per_elem = layer.op_type == "LSTM" ? 4 : layer.op_type == "GRU" ? 3 : 1;
      if (y != nullptr) gates += per_elem * static_cast<double>(y->num_elements()) * ElemBytes(*y);
    }
    if (fixed <= 0) return;
    workspace_.push_back({i, AllocatorBlockBytes(fixed + weights + 0.5 * gates)});
    if (options_.training) {
      workspace_.push_back({Backward(i), AllocatorBlockBytes(fixed + 2 * weights + 0.5 * gates)});
    }
  }

  // cuDNN's workspace of a convolution under cudnn.benchmark: about its
  // input and output (what the fastest kernels' layout transforms take), in
  // the forward of one wider than 1x1 (1x1 forwards run as GEMMs without
  // one) and in the backward of every one. Chosen on the corpus calibration
  // side; held while the convolution (or its backward) runs.
  void AddConvWorkspace(long i) {
    const Node& node = graph_.nodes[i];
    if (node.op_type != "Conv" || node.inputs.size() < 2 || node.outputs.empty()) return;
    const Tensor* x = graph_.FindTensor(node.inputs[0]);
    const Tensor* w = graph_.FindTensor(node.inputs[1]);
    const Tensor* y = graph_.FindTensor(node.outputs[0]);
    if (x == nullptr || w == nullptr || y == nullptr || w->dims.size() < 3) return;
    int64_t window = 1;
    for (size_t d = 2; d < w->dims.size(); ++d) window *= w->dims[d];
    const double bytes = AllocatorBlockBytes(
        static_cast<double>(x->num_elements()) * ElemBytes(*x) +
        static_cast<double>(y->num_elements()) * ElemBytes(*y));
    if (window > 1) workspace_.push_back({i, bytes});
    if (options_.training) workspace_.push_back({Backward(i), bytes});
  }

  void Save(long i) {
    const Node& node = graph_.nodes[i];
    const LoweredNode& ln = lowered_.nodes[i];
    const Tensor* out = graph_.FindTensor(node.outputs.empty() ? "" : node.outputs[0]);
    const double float_bytes = out != nullptr ? ElemBytes(*out) : 4.0;
    SavedForBackward saved = SavedTensors(
        graph_, node, ln, [this](const std::string& name) { return RequiresGrad(name); },
        float_bytes);
    for (const std::string& name : saved.tensors) {
      const std::string block = ReadBlock(i, name);
      auto it = buffers_.find(block);
      if (block.empty() || it == buffers_.end()) continue;
      if (it->second.first_saver < 0) it->second.first_saver = i;
    }
    if (saved.extra_bytes > 0) {
      Buffer b;
      b.bytes = AllocatorBlockBytes(saved.extra_bytes);
      b.producer = b.start = b.last_read = b.first_saver = i;
      buffers_["saved@" + std::to_string(i)] = b;
    }
  }

  // Adds `bytes` over steps [from, to] of `line`.
  void Span(std::vector<double>* line, long from, long to, double bytes) const {
    if (bytes <= 0 || to < from) return;
    (*line)[from] += bytes;
    (*line)[to + 1] -= bytes;
  }

  // Under recomputation, a block written and saved inside one segment is
  // freed after its last forward reader and written again when the
  // segment's backward starts (its recomputation).
  bool Recomputed(const Buffer& b) const {
    if (segment_.empty() || b.first_saver < 0 || b.producer < 0) return false;
    return segment_[b.producer] >= 0 && segment_[b.producer] == segment_[b.first_saver];
  }

  void ActivationSpans(std::vector<double>* act) const {
    for (const auto& [name, b] : buffers_) {
      long end = b.last_read;
      if (Recomputed(b)) {
        const long recompute = Backward(segment_end_.at(segment_[b.first_saver]));
        Span(act, recompute, Backward(b.first_saver), b.bytes);
      } else if (options_.training && b.first_saver >= 0) {
        end = std::max(end, Backward(b.first_saver));
      }
      Span(act, b.start, std::max(end, b.start), b.bytes);
      if (!options_.training || !b.requires_grad || b.producer < 0) continue;
      // its gradient: from the backward of its last reader to its producer's
      const long from = b.is_cast ? Backward(b.producer) : Backward(std::max(b.last_read, b.producer));
      Span(act, from, Backward(b.producer), b.bytes);
    }
  }

  double ParameterBytes(bool trainable_only) const {
    double sum = 0;
    for (const auto& [name, t] : graph_.tensors) {
      if (!t.is_initializer || !IsFloatDType(t.dtype)) continue;
      if (trainable_only && param_last_read_.count(name) == 0) continue;
      sum += AllocatorBlockBytes(static_cast<double>(t.num_elements()) * WeightElemBytes());
    }
    return sum;
  }

  int Shards(int from_stage) const {
    return options_.zero_stage >= from_stage ? std::max(1, options_.data_parallel_gpus) : 1;
  }

  // A parameter's gradient from its first user's backward (the last to
  // run) to the optimizer; under ZeRO-2/3 only its shard stays after that
  // backward (the full gradient is reduce-scattered there).
  void GradientSpans(std::vector<double>* grads) const {
    const int shards = Shards(2);
    for (const auto& [name, last] : param_last_read_) {
      const Tensor* t = graph_.FindTensor(name);
      const double full = static_cast<double>(t->num_elements()) * WeightElemBytes();
      if (shards == 1) {
        Span(grads, Backward(last), 2 * n_, AllocatorBlockBytes(full));
        continue;
      }
      Span(grads, Backward(last), Backward(last), AllocatorBlockBytes(full));
      Span(grads, Backward(last) + 1, 2 * n_, AllocatorBlockBytes(full / shards));
    }
  }

  // ZeRO-3: each node's weights gathered in full while its forward and its
  // backward run (the rest of the time each GPU holds its shard).
  void GatheredWeightSpans(std::vector<double>* gathered) const {
    if (Shards(3) == 1) return;
    std::vector<double> per_node(n_, 0.0);
    std::set<std::pair<long, std::string>> seen;
    for (long i = 0; i < n_; ++i) {
      for (const std::string& in : graph_.nodes[i].inputs) {
        if (!IsParameter(in) || !seen.insert({i, in}).second) continue;
        per_node[i] += AllocatorBlockBytes(
            static_cast<double>(graph_.FindTensor(in)->num_elements()) * WeightElemBytes());
      }
    }
    for (long i = 0; i < n_; ++i) {
      Span(gathered, i, i, per_node[i]);
      if (options_.training) Span(gathered, Backward(i), Backward(i), per_node[i]);
    }
  }

  std::string StepName(long s) const {
    if (s < n_) return "forward " + graph_.nodes[s].name;
    if (s < 2 * n_) return "backward " + graph_.nodes[Backward(s)].name;
    return "optimizer";
  }

  MemoryFootprint Peak() const {
    const long steps = std::max(LastStep() + 1, 1L);
    std::vector<double> act(steps + 1, 0.0), grads(steps + 1, 0.0), work(steps + 1, 0.0);
    ActivationSpans(&act);
    std::vector<double> gathered(steps + 1, 0.0);
    GatheredWeightSpans(&gathered);
    MemoryFootprint m;
    // ZeRO-2 as FSDP's SHARD_GRAD_OP: the shard, and the weights gathered
    // from the forward to the end of the backward
    const double all_weights = ParameterBytes(false);
    const double weights = options_.zero_stage == 2 ? all_weights + all_weights / Shards(2)
                                                    : all_weights / Shards(3);
    if (options_.training) {
      GradientSpans(&grads);
      // DistributedDataParallel (ZeRO 0, 1): its bucket buffers, as large as
      // the gradients, live from its construction on, beside the gradients
      if (options_.data_parallel_gpus > 1 && options_.zero_stage < 2) {
        Span(&grads, 0, 2 * n_, ParameterBytes(true));
      }
      const double trainable = ParameterBytes(true) / Shards(1);
      const double states = OptimizerStates(options_.optimizer);
      m.optimizer_state_bytes = states * trainable;
      // foreach Adam's sqrt of the second moment: one temporary per parameter
      if (states == 2) Span(&work, 2 * n_, 2 * n_, trainable);
    }
    for (const auto& [step, bytes] : workspace_) Span(&work, step, step, bytes);
    double a = 0, g = 0, w = 0, gw = 0, best = -1;
    m.weights_bytes = weights;
    for (long s = 0; s < steps; ++s) {
      a += act[s], g += grads[s], w += work[s], gw += gathered[s];
      // what grows with the batch: activations and the ops' workspaces (not
      // the optimizer step's temporaries)
      const bool optimizer_step = options_.training && s == 2 * n_;
      m.activations_max_bytes = std::max(m.activations_max_bytes, a + (optimizer_step ? 0 : w));
      if (a + g + w + gw > best) {
        best = a + g + w + gw;
        m.weights_bytes = weights + gw;
        m.activations_bytes = a, m.gradients_bytes = g, m.workspace_bytes = w;
        m.peak_at = n_ > 0 ? StepName(s) : "";
      }
    }
    return m;
  }

  const Graph& graph_;
  const LoweredGraph& lowered_;
  const MemoryOptions& options_;
  const long n_;
  const std::set<std::string> scalar_constants_;  // one-element initializers, not parameters
  std::map<std::string, Buffer> buffers_;      // by root (or cast/extra) name
  std::map<std::string, std::string> root_;    // tensor -> the block it lives in
  std::map<std::string, bool> grad_;           // activation -> needs a gradient
  std::map<std::string, long> param_last_read_;  // parameter -> last forward reader
  std::vector<std::pair<long, double>> workspace_;  // (step, bytes) of transient buffers
  std::vector<int> segment_;           // checkpointing: per node, its segment
  std::map<int, long> segment_end_;    // segment -> its last node
};

}  // namespace

MemoryFootprint PeakMemory(const Graph& graph, const LoweredGraph& lowered,
                           const MemoryOptions& options) {
  return Simulator(graph, lowered, options).Run();
}

}  // namespace dlsim
