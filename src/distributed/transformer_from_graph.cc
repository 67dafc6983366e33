// A transformer's shape from its ONNX graph (transformer_from_graph.h).
#include "dlsim/distributed/transformer_from_graph.h"

#include <algorithm>
#include <map>
#include <set>

namespace dlsim {

namespace {

bool IsNorm(const Node& n) {
  return n.op_type == "LayerNormalization" || n.op_type == "RMSNormalization" ||
         n.op_type == "com.microsoft::SimplifiedLayerNormalization";
}

Status NotFound(const Graph& g, const std::string& what) {
  return InvalidArgument(g.source_path + ": no transformer found: " + what +
                         " (dlsim scale --onnx reads GPT-style exports with LayerNormalization "
                         "nodes; describe other models in a job file)");
}

// The other side of every 2-D weight with one side `hidden`, and how many
// weights have it.
std::map<int64_t, int> WidthCounts(const Graph& g, int64_t hidden) {
  std::map<int64_t, int> counts;
  std::set<std::string> seen;
  for (const Node& n : g.nodes) {
    if (n.op_type != "MatMul" && n.op_type != "Gemm") continue;
    for (const std::string& in : n.inputs) {
      const Tensor* t = g.FindTensor(in);
      if (t == nullptr || !t->is_initializer || t->dims.size() != 2 || !seen.insert(in).second) {
        continue;
      }
      const int64_t a = t->dims[0], b = t->dims[1];
      if (a == hidden) counts[b]++;
      else if (b == hidden) counts[a]++;
    }
  }
  return counts;
}

int64_t VocabOf(const Graph& g, int64_t hidden) {
  int64_t vocab = 0;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Gather" || n.inputs.empty()) continue;
    const Tensor* t = g.FindTensor(n.inputs[0]);
    if (t != nullptr && t->is_initializer && t->dims.size() == 2 && t->dims[1] == hidden) {
      vocab = std::max(vocab, t->dims[0]);
    }
  }
  return vocab;
}

int64_t HeadsOf(const Graph& g) {
  for (const Node& n : g.nodes) {
    if (n.op_type == "Attention" && n.HasAttr("q_num_heads")) return n.GetInt("q_num_heads", 0);
    if (n.op_type != "Softmax" || n.inputs.empty()) continue;
    const Tensor* t = g.FindTensor(n.inputs[0]);
    if (t != nullptr && t->dims.size() == 4 && t->dims[2] == t->dims[3]) return t->dims[1];
  }
  return 0;
}


// RMSNorm as exporters decompose it: ReduceMean(Pow(x, 2)); its width is x's last dim.
std::vector<int64_t> DecomposedRmsNormWidths(const Graph& g) {
  std::map<std::string, const Node*> producer;
  for (const Node& n : g.nodes) {
    for (const std::string& out : n.outputs) producer[out] = &n;
  }
  std::vector<int64_t> widths;
  for (const Node& n : g.nodes) {
    if (n.op_type != "ReduceMean" || n.inputs.empty()) continue;
    auto it = producer.find(n.inputs[0]);
    if (it == producer.end() || it->second->op_type != "Pow") continue;
    const Tensor* x = g.FindTensor(n.inputs[0]);
    if (x != nullptr && !x->dims.empty()) widths.push_back(x->dims.back());
  }
  return widths;
}

Result<TransformerSpec> FromBlocks(const Graph& g, int64_t layers, int64_t hidden) {
  TransformerSpec m;
  m.name = g.name;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = HeadsOf(g);
  if (m.heads <= 0 || m.hidden % m.heads != 0) return NotFound(g, "no attention heads");
  m.vocab = VocabOf(g, m.hidden);
  if (m.vocab <= 0) return NotFound(g, "no embedding table of width " + std::to_string(m.hidden));
  const std::map<int64_t, int> widths = WidthCounts(g, m.hidden);
  // The MLP width: the widest side (but the vocabulary) that every block has.
  for (const auto& [w, count] : widths) {
    if (w != m.vocab && w > m.hidden && count >= m.layers && w != 3 * m.hidden) {
      m.ffn_hidden = std::max(m.ffn_hidden, w);
    }
  }
  if (m.ffn_hidden == 0) return NotFound(g, "no MLP weights in every block");
  m.gated_ffn = widths.at(m.ffn_hidden) >= 3 * m.layers;
  // Key/value heads: a fused QKV of h + 2 kv d columns, else separate k and v.
  m.kv_heads = m.heads;
  const int64_t d = m.hidden / m.heads;
  for (const auto& [w, count] : widths) {
    if (count < m.layers || w >= m.hidden || w % d != 0) continue;
    m.kv_heads = w / d;  // separate k and v projections of kv d columns each
  }
  for (const auto& [w, count] : widths) {
    if (count >= m.layers && w > m.hidden && w < 3 * m.hidden && (w - m.hidden) % (2 * d) == 0 &&
        w != m.ffn_hidden) {
      m.kv_heads = (w - m.hidden) / (2 * d);
    }
  }
  m.tied_embeddings = widths.count(m.vocab) == 0;
  const Tensor* ids = g.inputs.empty() ? nullptr : g.FindTensor(g.inputs[0]);
  if (ids == nullptr || ids->dims.empty()) return NotFound(g, "no token input");
  m.seq_len = ids->dims.back();
  m.attention = AttentionImpl::kFlash;
  DLSIM_RETURN_IF_ERROR(ValidateTransformer(m).WithContext(g.source_path));
  return m;
}

Result<TransformerSpec> FromRmsNorms(const Graph& g, const std::vector<int64_t>& widths) {
  if (widths.size() < 3 || widths.size() % 2 == 0) {
    return NotFound(g, std::to_string(widths.size()) +
                           " normalisation nodes, where L blocks have 2 L + 1");
  }
  return FromBlocks(g, static_cast<int64_t>(widths.size() - 1) / 2, widths[0]);
}

}  // namespace

Result<TransformerSpec> TransformerFromGraph(const Graph& g) {
  std::vector<const Node*> norms;
  for (const Node& n : g.nodes) {
    if (IsNorm(n)) norms.push_back(&n);
  }
  if (norms.empty()) return FromRmsNorms(g, DecomposedRmsNormWidths(g));
  if (norms.size() < 3 || norms.size() % 2 == 0) {
    return NotFound(g, std::to_string(norms.size()) +
                           " normalisation nodes, where L blocks have 2 L + 1");
  }
  const Tensor* scale = norms[0]->inputs.size() > 1 ? g.FindTensor(norms[0]->inputs[1]) : nullptr;
  if (scale == nullptr || scale->num_elements() <= 0) return NotFound(g, "no normalisation scale");
  return FromBlocks(g, static_cast<int64_t>(norms.size() - 1) / 2, scale->num_elements());
}

}  // namespace dlsim
