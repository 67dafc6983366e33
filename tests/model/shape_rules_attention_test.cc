// The Attention (opset 23) shape rule: 4-D and 3-D operands, grouped-query
// heads, the KV cache outputs, the QKᵀ output and malformed nodes.
#include <gtest/gtest.h>

#include "dlsim/model/shape_inference.h"

namespace dlsim {
namespace {

constexpr const char* kAbsent = "";

// A graph with the given inputs and one Attention node "attn" reading
// `node_inputs` ("" for an omitted optional input) and writing `outputs`.
class AttentionGraph {
 public:
  AttentionGraph& Input(const std::string& name, Shape dims, DType dtype = DType::kFloat32) {
    Tensor& t = graph_.tensors[name];
    t.name = name;
    t.dtype = dtype;
    t.dims = std::move(dims);
    t.is_graph_input = true;
    graph_.inputs.push_back(name);
    return *this;
  }
  Node& Attention(std::vector<std::string> node_inputs, std::vector<std::string> outputs) {
    Node n;
    n.name = "attn";
    n.op_type = "Attention";
    n.inputs = std::move(node_inputs);
    n.outputs = std::move(outputs);
    graph_.nodes.push_back(std::move(n));
    return graph_.nodes.back();
  }
  static void SetInt(Node& n, const std::string& key, int64_t v) {
    n.attrs[key].kind = Attribute::Kind::kInt;
    n.attrs[key].i = v;
  }
  void SetOpset(int64_t opset) { graph_.opset = opset; }
  Status Infer() { return InferShapes(graph_, nullptr); }
  Shape Dims(const std::string& name) const {
    const Tensor* t = graph_.FindTensor(name);
    return t == nullptr ? Shape{-999} : t->dims;
  }
  DType TypeOf(const std::string& name) const { return graph_.FindTensor(name)->dtype; }

 private:
  Graph graph_ = [] {
    Graph g;
    g.opset = 23;
    return g;
  }();
};

TEST(AttentionShapeTest, FourDimCrossAttentionWithOwnValueHeadSize) {
  AttentionGraph g;
  g.Input("q", {2, 8, 16, 64}, DType::kFloat16).Input("k", {2, 8, 32, 64}, DType::kFloat16);
  g.Input("v", {2, 8, 32, 48}, DType::kFloat16);
  g.Attention({"q", "k", "v"}, {"y"});
  Status s = g.Infer();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.Dims("y"), (Shape{2, 8, 16, 48}));
  EXPECT_EQ(g.TypeOf("y"), DType::kFloat16);
}

TEST(AttentionShapeTest, ThreeDimSplitByHeadAttributes) {
  AttentionGraph g;
  g.Input("q", {2, 16, 512}).Input("k", {2, 32, 512}).Input("v", {2, 32, 256});
  Node& n = g.Attention({"q", "k", "v"}, {"y", "", "", "qk"});
  AttentionGraph::SetInt(n, "q_num_heads", 8);
  AttentionGraph::SetInt(n, "kv_num_heads", 8);
  Status s = g.Infer();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.Dims("y"), (Shape{2, 16, 8 * 32}));  // q heads x v head size (256 / 8)
  EXPECT_EQ(g.Dims("qk"), (Shape{2, 8, 16, 32}));
}

TEST(AttentionShapeTest, GroupedQueryHeads) {
  AttentionGraph g;
  g.Input("q", {1, 32, 10, 128}).Input("k", {1, 8, 10, 128}).Input("v", {1, 8, 10, 128});
  g.Attention({"q", "k", "v"}, {"y", "", "", "qk"});
  Status s = g.Infer();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.Dims("y"), (Shape{1, 32, 10, 128}));
  EXPECT_EQ(g.Dims("qk"), (Shape{1, 32, 10, 10}));

  AttentionGraph g3;  // the same in 3-D: 32 x 128 query, 8 x 128 key/value
  g3.Input("q", {1, 10, 4096}).Input("k", {1, 10, 1024}).Input("v", {1, 10, 1024});
  Node& n = g3.Attention({"q", "k", "v"}, {"y"});
  AttentionGraph::SetInt(n, "q_num_heads", 32);
  AttentionGraph::SetInt(n, "kv_num_heads", 8);
  s = g3.Infer();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g3.Dims("y"), (Shape{1, 10, 4096}));
}

TEST(AttentionShapeTest, PastAndPresentKeysAndValues) {
  AttentionGraph g;
  g.Input("q", {2, 1, 64}).Input("k", {2, 1, 32}).Input("v", {2, 1, 64});
  g.Input("mask", {2, 1, 1, 16}, DType::kBool);
  g.Input("past_k", {2, 2, 15, 16}).Input("past_v", {2, 2, 15, 32});
  Node& n = g.Attention({"q", "k", "v", "mask", "past_k", "past_v"},
                        {"y", "present_k", "present_v", "qk"});
  AttentionGraph::SetInt(n, "q_num_heads", 4);
  AttentionGraph::SetInt(n, "kv_num_heads", 2);
  Status s = g.Infer();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.Dims("y"), (Shape{2, 1, 4 * 32}));
  EXPECT_EQ(g.Dims("present_k"), (Shape{2, 2, 16, 16}));  // 15 past + 1 new
  EXPECT_EQ(g.Dims("present_v"), (Shape{2, 2, 16, 32}));
  EXPECT_EQ(g.Dims("qk"), (Shape{2, 4, 1, 16}));
}

// The message of the error InferShapes returns for an Attention node over
// q, k, v (plus `extra` inputs) with the given head attributes (0: unset).
std::string ErrorFor(Shape q, Shape k, Shape v, int64_t q_heads = 0, int64_t kv_heads = 0,
                     std::vector<std::pair<std::string, Shape>> extra = {}) {
  AttentionGraph g;
  g.Input("q", std::move(q)).Input("k", std::move(k)).Input("v", std::move(v));
  std::vector<std::string> inputs = {"q", "k", "v", kAbsent, kAbsent, kAbsent};
  for (auto& [slot, dims] : extra) {
    g.Input(slot, dims);
    inputs[slot == "past_k" ? 4 : 5] = slot;
  }
  Node& n = g.Attention(inputs, {"y"});
  if (q_heads != 0) AttentionGraph::SetInt(n, "q_num_heads", q_heads);
  if (kv_heads != 0) AttentionGraph::SetInt(n, "kv_num_heads", kv_heads);
  Status s = g.Infer();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node 'attn' (Attention)"), std::string::npos) << s.message();
  return s.message();
}

TEST(AttentionShapeTest, MalformedNodesAreErrors) {
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  std::string m = ErrorFor({2, 4, 8, 16}, {2, 64, 16}, {2, 64, 16});
  EXPECT_TRUE(has(m, "must all be 3-D or all 4-D")) << m;
  m = ErrorFor({2, 8, 16}, {2, 8, 16}, {2, 8, 16, 1});
  EXPECT_TRUE(has(m, "must all be 3-D or all 4-D")) << m;
  m = ErrorFor({2, 8}, {2, 8}, {2, 8});
  EXPECT_TRUE(has(m, "must all be 3-D or all 4-D")) << m;
  m = ErrorFor({2, 8, 64}, {2, 8, 64}, {2, 8, 64}, 0, 4);
  EXPECT_TRUE(has(m, "attribute 'q_num_heads' is missing")) << m;
  m = ErrorFor({2, 8, 64}, {2, 8, 64}, {2, 8, 64}, 4, 0);
  EXPECT_TRUE(has(m, "attribute 'kv_num_heads' is missing")) << m;
  m = ErrorFor({2, 8, 100}, {2, 8, 64}, {2, 8, 64}, 8, 4);
  EXPECT_TRUE(has(m, "Q hidden size 100 is not a multiple of q_num_heads 8")) << m;
  m = ErrorFor({2, 6, 8, 16}, {2, 4, 8, 16}, {2, 4, 8, 16});
  EXPECT_TRUE(has(m, "query heads 6 are not a multiple of key/value heads 4")) << m;
  m = ErrorFor({2, 8, 64}, {2, 8, 32}, {2, 8, 64}, 4, 4);
  EXPECT_TRUE(has(m, "Q head size 16 != K head size 8")) << m;
  m = ErrorFor({2, 4, 8, 16}, {2, 4, 8, 16}, {2, 4, 9, 16});
  EXPECT_TRUE(has(m, "differ in heads or sequence length")) << m;
  m = ErrorFor({2, 4, 8, 16}, {3, 4, 8, 16}, {3, 4, 8, 16});
  EXPECT_TRUE(has(m, "batch sizes differ: 2, 3, 3")) << m;
  m = ErrorFor({2, 4, 1, 16}, {2, 4, 1, 16}, {2, 4, 1, 16}, 0, 0, {{"past_k", {2, 4, 7, 16}}});
  EXPECT_TRUE(has(m, "past_key and past_value must be given together")) << m;
  m = ErrorFor({2, 4, 1, 16}, {2, 4, 1, 16}, {2, 4, 1, 16}, 0, 0,
               {{"past_k", {2, 4, 7, 16}}, {"past_v", {2, 2, 7, 16}}});
  EXPECT_TRUE(has(m, "past_key 2x4x7x16 and past_value 2x2x7x16 must be 2x4x(past_seq)x16"))
      << m;
}

TEST(AttentionShapeTest, AttributesOutsideTheSpecAreErrors) {
  auto error_for = [](const std::string& attr, int64_t value, Shape q = {2, 4, 8, 16}) {
    AttentionGraph g;
    const bool three_dim = q.size() == 3;
    g.Input("q", std::move(q));
    g.Input("k", three_dim ? Shape{2, 8, 32} : Shape{2, 2, 8, 16});
    g.Input("v", three_dim ? Shape{2, 8, 32} : Shape{2, 2, 8, 16});
    Node& n = g.Attention({"q", "k", "v"}, {"y"});
    if (three_dim) {
      AttentionGraph::SetInt(n, "q_num_heads", 4);
      AttentionGraph::SetInt(n, "kv_num_heads", 2);
    }
    AttentionGraph::SetInt(n, attr, value);
    Status s = g.Infer();
    EXPECT_TRUE(s.ok() || s.message().find("node 'attn' (Attention): ") != std::string::npos)
        << s.message();
    return s.ok() ? std::string() : s.message();
  };
  for (int64_t mode : {0, 1, 2, 3}) EXPECT_EQ(error_for("qk_matmul_output_mode", mode), "");
  EXPECT_NE(error_for("qk_matmul_output_mode", 4).find("qk_matmul_output_mode 4 is not 0, 1, 2 "
                                                        "or 3"),
            std::string::npos);
  EXPECT_NE(error_for("qk_matmul_output_mode", -1).find("qk_matmul_output_mode -1"),
            std::string::npos);
  for (int64_t type : {1, 10, 11, 16}) EXPECT_EQ(error_for("softmax_precision", type), "");
  EXPECT_NE(error_for("softmax_precision", 7).find("softmax_precision 7 is not a float type"),
            std::string::npos);
  // Head counts on 4-D operands: allowed when they match, an error when not.
  EXPECT_EQ(error_for("q_num_heads", 4), "");
  EXPECT_EQ(error_for("kv_num_heads", 2), "");
  EXPECT_NE(error_for("q_num_heads", 2).find("attribute 'q_num_heads' 2 disagrees with the 4-D "
                                             "Q 2x4x8x16"),
            std::string::npos);
  EXPECT_NE(error_for("kv_num_heads", 4).find("attribute 'kv_num_heads' 4 disagrees with the 4-D "
                                              "K 2x2x8x16"),
            std::string::npos);
  EXPECT_EQ(error_for("is_causal", 1, {2, 8, 64}), "");  // 3-D: the counts split the hidden dim
}

// The status of an Attention node at `opset` over q [2, 4, 8, 16] and k, v
// [2, 2, 5, 16] after a past key / value of 3 (total sequence 8), masked by
// a bool attn_mask of shape `mask`.
Status InferMasked(int64_t opset, Shape mask) {
  AttentionGraph g;
  g.SetOpset(opset);
  g.Input("q", {2, 4, 8, 16}).Input("k", {2, 2, 5, 16}).Input("v", {2, 2, 5, 16});
  g.Input("pk", {2, 2, 3, 16}).Input("pv", {2, 2, 3, 16}).Input("m", std::move(mask), DType::kBool);
  g.Attention({"q", "k", "v", "m", "pk", "pv"}, {"y"});
  return g.Infer();
}

TEST(AttentionShapeTest, MaskMustBroadcastToTheScores) {
  for (const Shape& ok : {Shape{2, 4, 8, 8}, Shape{2, 1, 8, 8}, Shape{8, 8}, Shape{1, 8},
                          Shape{8}, Shape{1}, Shape{}, Shape{2, 4, 1, 1}}) {
    Status s = InferMasked(23, ok);
    EXPECT_TRUE(s.ok()) << ShapeToString(ok) << ": " << s.ToString();
  }
  for (const Shape& bad : {Shape{2, 4, 8, 5}, Shape{3, 1, 8, 8}, Shape{2, 2, 8, 8},
                           Shape{8, 9}, Shape{1, 2, 4, 8, 8}}) {
    Status s = InferMasked(23, bad);
    ASSERT_FALSE(s.ok()) << ShapeToString(bad);
    EXPECT_NE(s.message().find("node 'attn' (Attention): attn_mask " + ShapeToString(bad) +
                               " does not broadcast to 2x4x8x8"),
              std::string::npos)
        << s.message();
  }
  // Opset 24 pads a shorter key dim with -inf; a longer one is still wrong.
  Status s = InferMasked(24, {2, 4, 8, 5});
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(InferMasked(24, {2, 4, 8, 9}).ok());
  EXPECT_FALSE(InferMasked(24, {2, 4, 5, 8}).ok());
}

// Q, K, V [2, 4, 8, 16] self-attention at `opset` with the given node
// inputs and outputs; "n" is an int64 [n_dim] tensor and "pk" / "pv" a past
// key / value [2, 4, 3, 16].
Status InferWith(int64_t opset, std::vector<std::string> inputs, std::vector<std::string> outputs,
                 int64_t n_dim = 2) {
  AttentionGraph g;
  g.SetOpset(opset);
  g.Input("q", {2, 4, 8, 16}).Input("k", {2, 4, 8, 16}).Input("v", {2, 4, 8, 16});
  g.Input("n", {n_dim}, DType::kInt64).Input("pk", {2, 4, 3, 16}).Input("pv", {2, 4, 3, 16});
  g.Attention(std::move(inputs), std::move(outputs));
  return g.Infer();
}

TEST(AttentionShapeTest, InputsAndOutputsPastTheSignatureAreErrors) {
  auto expect_error = [](const Status& s, const std::string& part) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("node 'attn' (Attention)"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  };
  // nonpad_kv_seqlen is opset 24's.
  expect_error(InferWith(23, {"q", "k", "v", "", "", "", "n"}, {"y"}),
               "input 6 (nonpad_kv_seqlen) is an Attention input from opset 24; the model "
               "imports opset 23");
  Status s = InferWith(24, {"q", "k", "v", "", "", "", "n"}, {"y"});
  EXPECT_TRUE(s.ok()) << s.ToString();
  expect_error(InferWith(24, {"q", "k", "v", "", "", "", "n"}, {"y"}, 3),
               "nonpad_kv_seqlen 3 must be [2]");
  expect_error(InferWith(24, {"q", "k", "v", "", "pk", "pv", "n"}, {"y"}),
               "nonpad_kv_seqlen cannot be combined with past_key / past_value");
  expect_error(InferWith(24, {"q", "k", "v", "", "", "", "n", "n"}, {"y"}),
               "has input 7 'n'; Attention takes at most 7 inputs");
  // Omitted trailing inputs are no inputs.
  s = InferWith(23, {"q", "k", "v", "", "", "", ""}, {"y"});
  EXPECT_TRUE(s.ok()) << s.ToString();
  expect_error(InferWith(23, {"q", "k", "v"}, {"y", "", "", "", "extra"}),
               "has output 4 'extra'; Attention has at most 4 outputs");
}

}  // namespace
}  // namespace dlsim
