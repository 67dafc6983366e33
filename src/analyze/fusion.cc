// Layer fusion: Conv -> bias Add / BatchNormalization (folded at inference)
// -> Relu as one cudnnConvolutionBiasActivationForward call.
#include <map>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

struct Readers {
  std::map<std::string, int> count;      // node inputs reading a tensor, graph outputs count once
  std::map<std::string, size_t> reader;  // the last node reading it
  std::map<std::string, size_t> producer;
};

Readers CountReaders(const Graph& graph) {
  Readers r;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& in : graph.nodes[i].inputs) {
      if (in.empty()) continue;
      ++r.count[in];
      r.reader[in] = i;
    }
    for (const std::string& out : graph.nodes[i].outputs) r.producer[out] = i;
  }
  for (const std::string& out : graph.outputs) ++r.count[out];
  return r;
}

// A constant that broadcasts over an output of rank `rank` along the channel
// axis only (ONNX numpy broadcasting aligns shapes on the right): [K,1,1],
// [1,K,1,1] for NCHW outputs.
bool IsChannelBias(const Graph& graph, const Readers& r, const std::string& name,
                   int64_t channels, size_t rank) {
  const Tensor* t = graph.FindTensor(name);
  if (t == nullptr || t->dims.size() > rank) return false;
  auto p = r.producer.find(name);
  const bool constant = t->is_initializer || t->value.has_value() ||
                        (p != r.producer.end() && graph.nodes[p->second].op_type == "Constant");
  if (!constant) return false;
  for (size_t a = 0; a < t->dims.size(); ++a) {
    const size_t aligned = a + rank - t->dims.size();
    if (t->dims[a] != (aligned == 1 ? channels : 1)) return false;
  }
  return true;
}

// The other input of a two-input Add reading `cur`, or "" when it is not one.
std::string OtherAddInput(const Node& add, const std::string& cur) {
  if (add.inputs.size() != 2 || add.inputs[0] == add.inputs[1]) return "";
  if (add.inputs[0] == cur) return add.inputs[1];
  if (add.inputs[1] == cur) return add.inputs[0];
  return "";
}

std::string GroupName(const Graph& graph, const FusionGroup& g) {
  std::string name = graph.nodes[g.conv].name;
  for (size_t a : g.absorbed) name += " + " + graph.nodes[a].name;
  return name;
}

}  // namespace

std::vector<FusionGroup> FindFusionGroups(const Graph& graph, bool training) {
  std::vector<FusionGroup> groups;
  if (training) return groups;  // the fused call and BN folding are inference-only
  const Readers r = CountReaders(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& conv = graph.nodes[i];
    if (conv.op_type != "Conv" || conv.outputs.empty() || conv.inputs.size() < 2) continue;
    const Tensor* w = graph.FindTensor(conv.inputs[1]);
    const Tensor* y = graph.FindTensor(conv.outputs[0]);
    if (w == nullptr || y == nullptr || w->dims.empty()) continue;
    const int64_t channels = w->dims[0];
    FusionGroup g;
    g.conv = i;
    g.act = "identity";
    bool bias = !conv.Input(2).empty();
    std::string cur = conv.outputs[0];
    while (true) {
      auto c = r.count.find(cur);
      auto reader = r.reader.find(cur);
      if (c == r.count.end() || c->second != 1 || reader == r.reader.end()) break;
      const size_t j = reader->second;  // the only reader (a graph output has none)
      const Node& next = graph.nodes[j];
      if (next.outputs.empty()) break;
      if (next.op_type == "Add" &&
          IsChannelBias(graph, r, OtherAddInput(next, cur), channels, y->dims.size())) {
        bias = true;
      } else if (next.op_type == "BatchNormalization" && next.Input(0) == cur) {
        bias = true;  // folded into the weights and the bias
      } else if (next.op_type == "Relu" && next.Input(0) == cur) {
        g.act = "relu";
        g.absorbed.push_back(j);
        break;
      } else {
        break;
      }
      g.absorbed.push_back(j);
      cur = next.outputs[0];
    }
    g.bias_elems = bias ? channels : 0;
    if (!g.absorbed.empty()) groups.push_back(std::move(g));
  }
  return groups;
}

FusionResult ApplyFusion(const Graph& graph, const std::vector<FusionGroup>& groups,
                         const CostModel& cost, Estimate* e) {
  FusionResult result;
  for (const FusionGroup& g : groups) {
    LayerEstimate& conv = e->layers[g.conv];
    size_t idx = conv.calls.size();
    for (size_t k = 0; k < conv.calls.size() && idx == conv.calls.size(); ++k) {
      if (conv.calls[k].kind == KernelKind::kConvFwd && conv.calls[k].phase == Phase::kForward) idx = k;
    }
    if (idx == conv.calls.size()) continue;  // not a plain convolution (already fused)
    double old_s = conv.fwd_s;
    size_t old_kernels = 0;
    for (const KernelCall& call : conv.calls) old_kernels += call.phase == Phase::kForward;
    for (size_t a : g.absorbed) {
      old_s += e->layers[a].fwd_s;
      for (const KernelCall& call : e->layers[a].calls) old_kernels += call.phase == Phase::kForward;
    }
    KernelCall fused = conv.calls[idx];
    fused.kind = KernelKind::kConvBiasAct;
    fused.library_call = "cudnnConvolutionBiasActivationForward";
    fused.AddParam("act", g.act);
    fused.bytes_read += static_cast<double>(g.bias_elems * DTypeBytes(fused.dtype));
    CallCost price = cost.Price(fused);
    const bool measured = price.source == CostSource::kMeasured;
    if (!measured) price = conv.costs[idx];
    if (!(old_s - price.time_s > 0)) continue;
    auto keep_backward = [](LayerEstimate* layer) {
      LayerEstimate kept = *layer;
      kept.calls.clear();
      kept.costs.clear();
      for (size_t k = 0; k < layer->calls.size(); ++k) {
        if (layer->calls[k].phase == Phase::kForward) continue;
        kept.calls.push_back(layer->calls[k]);
        kept.costs.push_back(layer->costs[k]);
      }
      *layer = std::move(kept);
    };
    keep_backward(&conv);
    conv.calls.insert(conv.calls.begin(), fused);
    conv.costs.insert(conv.costs.begin(), price);
    RetotalLayer(&conv);
    for (size_t a : g.absorbed) {
      keep_backward(&e->layers[a]);
      RetotalLayer(&e->layers[a]);
    }
    ++result.groups;
    result.measured += measured;
    result.layers.push_back(
        {GroupName(graph, g),
         std::to_string(old_kernels) + " kernels " + FormatSeconds(old_s) + " -> 1 fused call (act=" +
             g.act + ") " + FormatSeconds(price.time_s) +
             (measured ? " measured" : " (not measured: the convolution's time, epilogue free)"),
         old_s - price.time_s});
  }
  SortLayers(&result.layers);
  return result;
}

void AnalyzeFusion(const Context& ctx, Analysis* out) {
  if (ctx.options.lowering.training) {
    out->notes.push_back("fusion: not analysed in training (cudnnConvolutionBiasActivationForward "
                         "and batch-norm folding are inference-only)");
    return;
  }
  const std::vector<FusionGroup> groups = FindFusionGroups(ctx.graph, false);
  if (groups.empty()) {
    out->notes.push_back("fusion: no Conv followed by a bias Add, BatchNormalization or Relu "
                         "that nothing else reads");
    return;
  }
  Estimate e = ctx.baseline;
  FusionResult r = ApplyFusion(ctx.graph, groups, ctx.cost, &e);
  if (r.groups == 0) {
    out->notes.push_back("fusion: " + std::to_string(groups.size()) +
                         " conv-bias-activation groups, none faster fused (already fused?)");
    return;
  }
  Advice a;
  a.kind = "fusion";
  a.baseline_s = ctx.baseline.gpu_time_s;
  double saved = 0;
  for (const LayerAdvice& la : r.layers) saved += la.saved_s;
  a.improved_s = a.baseline_s - saved;
  a.title = "Fuse convolution + bias + activation into cudnnConvolutionBiasActivationForward (" +
            std::to_string(r.groups) + " groups)";
  a.note = r.measured == r.groups
               ? "every fused call measured"
               : std::to_string(r.groups - r.measured) + " of " + std::to_string(r.groups) +
                     " fused calls not measured: priced as the convolution alone, an upper bound "
                     "on their saving";
  a.layers = std::move(r.layers);
  out->advice.push_back(std::move(a));
}

}  // namespace dlsim::analyze
