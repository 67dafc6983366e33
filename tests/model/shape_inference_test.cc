// InferShapes: per-op rules and constant folding, on the generated models and
// on small graphs built in the test.
#include "dlsim/model/shape_inference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "dlsim/model/onnx_import.h"

namespace dlsim {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

Graph LoadModel(const std::string& name, const ImportOptions& options) {
  auto g = LoadOnnxModel(std::string(DLSIM_TEST_DATA_DIR) + "/models/" + name, options);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(g).value() : Graph();
}

Graph LoadModel(const std::string& name, int64_t batch) {
  ImportOptions options;
  options.batch = batch;
  return LoadModel(name, options);
}

Shape Dims(const Graph& g, const std::string& name) {
  const Tensor* t = g.FindTensor(name);
  return t == nullptr ? Shape{-999} : t->dims;
}

std::vector<int64_t> Ints(const Graph& g, const std::string& name) {
  const Tensor* t = g.FindTensor(name);
  if (t == nullptr || !t->value) return {-999};
  return t->value->ints;
}

// Builds graphs node by node for rule tests.
class GraphBuilder {
 public:
  GraphBuilder& Input(const std::string& name, Shape dims, DType dtype = DType::kFloat32) {
    Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.dims = std::move(dims);
    t.is_graph_input = true;
    g_.tensors[name] = t;
    g_.inputs.push_back(name);
    return *this;
  }
  GraphBuilder& Ints(const std::string& name, std::vector<int64_t> values, Shape dims = {}) {
    Tensor t;
    t.name = name;
    t.dtype = DType::kInt64;
    t.dims = dims.empty() && values.size() != 1 ? Shape{int64_t(values.size())} : dims;
    t.is_initializer = true;
    t.value = TensorValue{false, std::move(values), {}};
    g_.tensors[name] = t;
    return *this;
  }
  GraphBuilder& Scalar(const std::string& name, int64_t v) {
    Ints(name, {v});
    g_.tensors[name].dims = {};
    return *this;
  }
  Node& Op(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    Node n;
    n.name = op + "_" + std::to_string(g_.nodes.size());
    n.op_type = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    g_.nodes.push_back(n);
    return g_.nodes.back();
  }
  Graph& graph() { return g_; }

 private:
  Graph g_ = [] {
    Graph g;
    g.opset = 17;
    return g;
  }();
};

Node& Last(GraphBuilder& b) { return b.graph().nodes.back(); }

void SetInts(Node& n, const std::string& key, std::vector<int64_t> v) {
  n.attrs[key].kind = Attribute::Kind::kInts;
  n.attrs[key].ints = std::move(v);
}
void SetInt(Node& n, const std::string& key, int64_t v) {
  n.attrs[key].kind = Attribute::Kind::kInt;
  n.attrs[key].i = v;
}
void SetString(Node& n, const std::string& key, const std::string& v) {
  n.attrs[key].kind = Attribute::Kind::kString;
  n.attrs[key].s = v;
}

TEST(ShapeModelsTest, AttentionFoldsDynamicReshapes) {
  ImportOptions options;
  options.input_shapes["x"] = {2, 16, 64};
  Graph g = LoadModel("attention_opset17.onnx", options);
  EXPECT_EQ(Ints(g, "x_shape"), (std::vector<int64_t>{2, 16, 64}));
  EXPECT_EQ(Ints(g, "head_dim"), (std::vector<int64_t>{16}));
  EXPECT_EQ(Ints(g, "split_shape"), (std::vector<int64_t>{2, 16, 4, 16}));
  EXPECT_EQ(Dims(g, "q_4d"), (Shape{2, 16, 4, 16}));
  EXPECT_EQ(Dims(g, "k_t"), (Shape{2, 4, 16, 16}));
  EXPECT_EQ(Dims(g, "scores"), (Shape{2, 4, 16, 16}));
  EXPECT_EQ(Dims(g, "bias"), (Shape{16, 16}));
  EXPECT_EQ(g.FindTensor("masked")->dtype, DType::kBool);
  EXPECT_EQ(Dims(g, "ctx"), (Shape{2, 4, 16, 16}));
  EXPECT_EQ(Dims(g, "merged"), (Shape{2, 16, 64}));
  EXPECT_EQ(Dims(g, "y"), (Shape{2, 16, 64}));
  EXPECT_FALSE(g.FindTensor("scores")->value.has_value());
}

TEST(ShapeModelsTest, VitClassTokenExpandConcat) {
  Graph g = LoadModel("vit_token_opset17.onnx", 4);
  EXPECT_EQ(Dims(g, "patches"), (Shape{4, 32, 4, 4}));
  EXPECT_EQ(Dims(g, "tokens"), (Shape{4, 16, 32}));
  EXPECT_EQ(Ints(g, "exp_shape"), (std::vector<int64_t>{4, 1, 1}));
  EXPECT_EQ(Dims(g, "cls"), (Shape{4, 1, 32}));
  EXPECT_EQ(Dims(g, "seq"), (Shape{4, 17, 32}));
  EXPECT_EQ(Dims(g, "cls_out"), (Shape{4, 32}));
  EXPECT_EQ(Dims(g, "logits"), (Shape{4, 10}));
}

TEST(ShapeModelsTest, ChannelShuffle) {
  Graph g = LoadModel("channel_shuffle_opset13.onnx", 3);
  EXPECT_EQ(Dims(g, "left"), (Shape{3, 8, 8, 8}));
  EXPECT_EQ(Dims(g, "grouped"), (Shape{3, 2, 8, 8, 8}));
  EXPECT_EQ(Dims(g, "shuffled"), (Shape{3, 8, 2, 8, 8}));
  EXPECT_EQ(Dims(g, "output"), (Shape{3, 16, 8, 8}));
}

TEST(ShapeModelsTest, BidirectionalLstm) {
  Graph g = LoadModel("lstm_opset17.onnx", 5);
  EXPECT_EQ(Dims(g, "Y"), (Shape{10, 2, 5, 16}));
  EXPECT_EQ(Dims(g, "Y_h"), (Shape{2, 5, 16}));
  EXPECT_EQ(Dims(g, "Y_c"), (Shape{2, 5, 16}));
  EXPECT_EQ(Dims(g, "output"), (Shape{5, 10, 32}));
}

TEST(ShapeModelsTest, ShapeOpsInBothOpsetForms) {
  for (const char* name : {"shape_ops_opset11.onnx", "shape_ops_opset17.onnx"}) {
    Graph g = LoadModel(name, 6);
    EXPECT_EQ(Dims(g, "red"), (Shape{6, 4})) << name;
    EXPECT_EQ(Dims(g, "unsq"), (Shape{6, 1, 4})) << name;
    EXPECT_EQ(Dims(g, "sq"), (Shape{6, 4})) << name;
    EXPECT_EQ(Dims(g, "s1"), (Shape{6, 1})) << name;
    EXPECT_EQ(Dims(g, "s3"), (Shape{6, 3})) << name;
    EXPECT_EQ(Dims(g, "padded"), (Shape{6, 5})) << name;
    EXPECT_EQ(Dims(g, "reversed"), (Shape{6, 3})) << name;
    EXPECT_EQ(Dims(g, "output"), (Shape{6, 4})) << name;
  }
}

TEST(ShapeRulesTest, ReshapeZeroMinusOneAndAllowZero) {
  GraphBuilder b;
  b.Input("x", {2, 3, 4}).Ints("s1", {0, -1}).Ints("s2", {0, 4, 3}).Ints("s3", {-1});
  b.Op("Reshape", {"x", "s1"}, {"a"});
  b.Op("Reshape", {"x", "s3"}, {"c"});
  b.Input("e", {0, 4}).Ints("s4", {0, 4});
  SetInt(b.Op("Reshape", {"e", "s4"}, {"d"}), "allowzero", 1);
  b.Op("Reshape", {"x", "s2"}, {"f"});
  Graph& g = b.graph();
  ASSERT_TRUE(InferShapes(g, nullptr).ok());
  EXPECT_EQ(Dims(g, "a"), (Shape{2, 12}));
  EXPECT_EQ(Dims(g, "c"), (Shape{24}));
  EXPECT_EQ(Dims(g, "d"), (Shape{0, 4}));
  EXPECT_EQ(Dims(g, "f"), (Shape{2, 4, 3}));
}

TEST(ShapeRulesTest, ReshapeMismatchNamesNode) {
  GraphBuilder b;
  b.Input("x", {2, 3}).Ints("s", {4, 2});
  b.Op("Reshape", {"x", "s"}, {"y"});
  Status s = InferShapes(b.graph(), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node 'Reshape_0'"), std::string::npos) << s.message();
}

TEST(ShapeRulesTest, FoldsShapeArithmetic) {
  GraphBuilder b;
  b.Input("x", {8, 12, 64}).Scalar("one", 1).Scalar("two", 2).Scalar("three", 3);
  b.Scalar("zero", 0).Ints("axes", {0});
  b.Op("Shape", {"x"}, {"shape"});
  b.Op("Gather", {"shape", "one"}, {"seq"});       // 12
  b.Op("Mul", {"seq", "two"}, {"seq2"});           // 24
  b.Op("Sub", {"seq2", "three"}, {"d"});           // 21
  b.Op("Mod", {"d", "two"}, {"m"});                // 1
  b.Op("Pow", {"two", "three"}, {"p"});            // 8
  b.Op("Range", {"zero", "seq", "three"}, {"r"});  // 0 3 6 9
  b.Op("Unsqueeze", {"seq", "axes"}, {"seq1"});
  b.Op("Concat", {"seq1", "seq1", "shape"}, {"cat"});
  SetInt(Last(b), "axis", 0);
  b.Op("Less", {"r", "three"}, {"lt"});
  b.Op("Not", {"lt"}, {"nlt"});
  b.Op("Cast", {"r"}, {"rf"});
  SetInt(Last(b), "to", 1);
  b.Op("Sqrt", {"rf"}, {"rs"});
  b.Op("ReduceProd", {"shape"}, {"prod"});
  SetInt(Last(b), "keepdims", 0);
  b.Op("Neg", {"seq"}, {"neg"});
  b.Op("Max", {"neg", "m", "zero"}, {"mx"});
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Ints(g, "seq"), (std::vector<int64_t>{12}));
  EXPECT_EQ(Dims(g, "seq"), (Shape{}));
  EXPECT_EQ(Ints(g, "seq2"), (std::vector<int64_t>{24}));
  EXPECT_EQ(Ints(g, "d"), (std::vector<int64_t>{21}));
  EXPECT_EQ(Ints(g, "m"), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(g, "p"), (std::vector<int64_t>{8}));
  EXPECT_EQ(Ints(g, "r"), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(Ints(g, "cat"), (std::vector<int64_t>{12, 12, 8, 12, 64}));
  EXPECT_EQ(Ints(g, "lt"), (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(Ints(g, "nlt"), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(g.FindTensor("rs")->value->floats,
            (std::vector<double>{0, std::sqrt(3.0), std::sqrt(6.0), 3}));
  EXPECT_EQ(Ints(g, "prod"), (std::vector<int64_t>{8 * 12 * 64}));
  EXPECT_EQ(Ints(g, "mx"), (std::vector<int64_t>{1}));
}

TEST(ShapeRulesTest, FoldsTriluCumSumTileNonZero) {
  GraphBuilder b;
  b.Ints("m", {1, 1, 1, 1, 1, 1, 1, 1, 1}, {3, 3}).Scalar("zero", 0).Ints("reps", {1, 2});
  b.Ints("row", {1, 2, 3}, {1, 3});
  b.Op("Trilu", {"m"}, {"upper"});
  SetInt(b.Op("Trilu", {"m", "zero"}, {"lower"}), "upper", 0);
  b.Op("CumSum", {"m", "zero"}, {"cs"});
  SetInt(b.Op("CumSum", {"row", "zero"}, {"cs_ex"}), "exclusive", 1);
  b.Ints("one_axis", {1});
  SetInt(b.Op("CumSum", {"row", "one_axis"}, {"cs_rev"}), "reverse", 1);
  b.Op("Tile", {"row", "reps"}, {"tiled"});
  b.Op("NonZero", {"lower"}, {"nz"});
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Ints(g, "upper"), (std::vector<int64_t>{1, 1, 1, 0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(Ints(g, "lower"), (std::vector<int64_t>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(Ints(g, "cs"), (std::vector<int64_t>{1, 1, 1, 2, 2, 2, 3, 3, 3}));
  EXPECT_EQ(Ints(g, "cs_ex"), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(Ints(g, "cs_rev"), (std::vector<int64_t>{6, 5, 3}));
  EXPECT_EQ(Dims(g, "tiled"), (Shape{1, 6}));
  EXPECT_EQ(Ints(g, "tiled"), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(Dims(g, "nz"), (Shape{2, 6}));
  EXPECT_EQ(Ints(g, "nz"), (std::vector<int64_t>{0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2}));
}

TEST(ShapeRulesTest, SliceForms) {
  GraphBuilder b;
  b.Input("x", {10, 20}).Ints("v", {0, 1, 2, 3, 4, 5, 6, 7});
  b.Ints("s0", {2}).Ints("e0", {kInt64Max}).Ints("a1", {1});
  b.Ints("sn", {-1}).Ints("en", {-kInt64Max}).Ints("stn", {-3});
  b.Ints("s2", {1, -5}).Ints("e2", {-1, 1000}).Ints("a2", {0, 1}).Ints("st2", {2, 1});
  b.Op("Slice", {"x", "s0", "e0", "a1"}, {"a"});
  b.Op("Slice", {"v", "sn", "en", "", "stn"}, {"rev"});
  b.Op("Slice", {"x", "s2", "e2", "a2", "st2"}, {"c"});
  b.Op("Slice", {"v", "s0", "e0"}, {"tail"});
  Graph& g = b.graph();
  ASSERT_TRUE(InferShapes(g, nullptr).ok());
  EXPECT_EQ(Dims(g, "a"), (Shape{10, 18}));
  EXPECT_EQ(Ints(g, "rev"), (std::vector<int64_t>{7, 4, 1}));
  EXPECT_EQ(Dims(g, "c"), (Shape{4, 5}));
  EXPECT_EQ(Ints(g, "tail"), (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
}

// Issue 24: a window wider than the padded input is an error naming the node,
// not an empty 1x4x0x0 output priced at 0 FLOP; the same for pooling, and for
// a ConvTranspose whose pads eat the whole output.
Status InferOne(const std::string& op, Shape x, Shape w,
                const std::function<void(Node&)>& set_attrs) {
  GraphBuilder b;
  b.Input("x", std::move(x));
  std::vector<std::string> in = {"x"};
  if (!w.empty()) {
    b.Input("w", std::move(w));
    in.push_back("w");
  }
  set_attrs(b.Op(op, in, {"y"}));
  return InferShapes(b.graph(), nullptr);
}

TEST(ShapeRulesTest, WindowLargerThanPaddedInputIsAnError) {
  Status conv = InferOne("Conv", {1, 3, 4, 4}, {4, 3, 7, 7}, [](Node& n) {
    SetInts(n, "pads", {1, 1, 1, 1});
  });
  ASSERT_FALSE(conv.ok());
  EXPECT_NE(conv.message().find("node 'Conv_0' (Conv)"), std::string::npos) << conv.message();
  EXPECT_NE(conv.message().find("7 wide) is larger than the padded input (6)"), std::string::npos)
      << conv.message();
  // Dilation widens the window: 3 taps x dilation 4 = 9 > 8.
  Status dilated = InferOne("Conv", {1, 3, 8, 8}, {4, 3, 3, 3}, [](Node& n) {
    SetInts(n, "dilations", {4, 4});
  });
  EXPECT_NE(dilated.message().find("9 wide"), std::string::npos) << dilated.message();
  // Exactly fitting is fine: one output position.
  EXPECT_TRUE(InferOne("Conv", {1, 3, 4, 4}, {4, 3, 6, 6}, [](Node& n) {
                SetInts(n, "pads", {1, 1, 1, 1});
              }).ok());
  for (const char* pool : {"MaxPool", "AveragePool", "LpPool"}) {
    Status s = InferOne(pool, {1, 3, 4, 4}, {}, [](Node& n) { SetInts(n, "kernel_shape", {5, 5}); });
    ASSERT_FALSE(s.ok()) << pool;
    EXPECT_NE(s.message().find(std::string("(") + pool + "): spatial dim 2"), std::string::npos)
        << s.message();
  }
  // ConvTranspose: 2 x (3 - 1) + 3 - (4 + 4) = -1.
  Status ct = InferOne("ConvTranspose", {1, 3, 3, 3}, {3, 2, 3, 3}, [](Node& n) {
    SetInts(n, "strides", {2, 2});
    SetInts(n, "pads", {4, 4, 4, 4});
  });
  ASSERT_FALSE(ct.ok());
  EXPECT_NE(ct.message().find("(ConvTranspose): output dim 2 out of range (not positive"),
            std::string::npos)
      << ct.message();
}

TEST(ShapeRulesTest, ConvPoolVariants) {
  GraphBuilder b;
  b.Input("x", {2, 4, 15, 15}).Input("w", {8, 2, 3, 3}).Input("x1", {2, 3, 100});
  b.Input("w1", {6, 3, 5}).Input("x3", {1, 2, 8, 8, 8}).Input("w3", {4, 2, 3, 3, 3});
  b.Input("wt", {4, 3, 4, 4});
  Node& grouped = b.Op("Conv", {"x", "w"}, {"g"});
  SetInt(grouped, "group", 2);
  SetInts(grouped, "strides", {2, 2});
  SetInts(grouped, "dilations", {2, 2});
  SetInts(grouped, "pads", {1, 1, 1, 1});
  SetInts(b.Op("Conv", {"x1", "w1"}, {"c1"}), "strides", {3});
  SetString(b.Op("Conv", {"x3", "w3"}, {"c3"}), "auto_pad", "SAME_UPPER");
  Node& pool = b.Op("MaxPool", {"x"}, {"p"});
  SetInts(pool, "kernel_shape", {3, 3});
  SetInts(pool, "strides", {2, 2});
  SetInt(pool, "ceil_mode", 1);
  Node& avg = b.Op("AveragePool", {"x"}, {"q"});
  SetInts(avg, "kernel_shape", {2, 2});
  SetInts(avg, "strides", {2, 2});
  Node& ct = b.Op("ConvTranspose", {"x", "wt"}, {"t"});
  SetInts(ct, "strides", {2, 2});
  SetInts(ct, "pads", {1, 1, 1, 1});
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Dims(g, "g"), (Shape{2, 8, 7, 7}));  // (15+2-5)/2+1
  EXPECT_EQ(Dims(g, "c1"), (Shape{2, 6, 32}));   // (100-5)/3+1
  EXPECT_EQ(Dims(g, "c3"), (Shape{1, 4, 8, 8, 8}));
  EXPECT_EQ(Dims(g, "p"), (Shape{2, 4, 7, 7}));  // ceil((15-3)/2)+1
  EXPECT_EQ(Dims(g, "q"), (Shape{2, 4, 7, 7}));
  EXPECT_EQ(Dims(g, "t"), (Shape{2, 3, 30, 30}));  // 2*14+4-2
}

TEST(ShapeRulesTest, CeilModeDropsWindowStartingInPadding) {
  GraphBuilder b;
  b.Input("x", {1, 1, 6, 6});
  Node& pool = b.Op("MaxPool", {"x"}, {"p"});
  SetInts(pool, "kernel_shape", {2, 2});
  SetInts(pool, "strides", {2, 2});
  SetInts(pool, "pads", {1, 1, 1, 1});
  SetInt(pool, "ceil_mode", 1);
  ASSERT_TRUE(InferShapes(b.graph(), nullptr).ok());
  EXPECT_EQ(Dims(b.graph(), "p"), (Shape{1, 1, 4, 4}));  // PyTorch: 4, not 5
}

TEST(ShapeRulesTest, MatMulGemmEinsum) {
  GraphBuilder b;
  b.Input("a", {2, 1, 5, 3}).Input("b", {4, 3, 6}).Input("v", {3}).Input("m", {7, 3});
  b.Input("k", {8, 3}).Input("q", {2, 5, 3});
  b.Op("MatMul", {"a", "b"}, {"ab"});
  b.Op("MatMul", {"v", "b"}, {"vb"});
  b.Op("MatMul", {"m", "v"}, {"mv"});
  SetInt(b.Op("Gemm", {"m", "k"}, {"gemm"}), "transB", 1);
  SetString(b.Op("Einsum", {"q", "b"}, {"e1"}), "equation", "bij,bjk->bik");
  b.graph().nodes.back().inputs = {"q", "q"};
  b.graph().nodes.back().attrs["equation"].s = "bij,bkj->bik";
  SetString(b.Op("Einsum", {"a"}, {"e2"}), "equation", "...ij->...ji");
  SetString(b.Op("Einsum", {"m", "k"}, {"e3"}), "equation", "ij,kj");
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Dims(g, "ab"), (Shape{2, 4, 5, 6}));
  EXPECT_EQ(Dims(g, "vb"), (Shape{4, 6}));
  EXPECT_EQ(Dims(g, "mv"), (Shape{7}));
  EXPECT_EQ(Dims(g, "gemm"), (Shape{7, 8}));
  EXPECT_EQ(Dims(g, "e1"), (Shape{2, 5, 5}));
  EXPECT_EQ(Dims(g, "e2"), (Shape{2, 1, 3, 5}));
  EXPECT_EQ(Dims(g, "e3"), (Shape{7, 8}));  // implicit output: i, k
}

TEST(ShapeRulesTest, SplitResizeTopKReduceDropout) {
  GraphBuilder b;
  b.Input("x", {2, 10, 8, 8}).Ints("scales_none", {}, {0});
  b.graph().tensors["sc"] =
      Tensor{"sc", DType::kFloat32, {4}, true, false, TensorValue{true, {}, {1, 1, 2, 2}}};
  b.Ints("sizes", {2, 10, 5, 5}).Ints("k", {3}).Ints("axes", {1, -1});
  SetInt(b.Op("Split", {"x"}, {"s0", "s1", "s2"}), "axis", 1);  // 4, 4, 2
  b.Op("Resize", {"x", "", "sc"}, {"up"});
  b.Op("Resize", {"x", "", "", "sizes"}, {"down"});
  b.Op("TopK", {"x", "k"}, {"vals", "idx"});
  b.Op("ReduceSum", {"x", "axes"}, {"rs"});
  SetInt(b.Op("ReduceMean", {"x"}, {"rm"}), "keepdims", 0);
  SetInts(Last(b), "axes", {2, 3});
  SetInt(b.Op("ArgMax", {"x"}, {"am"}), "axis", 1);
  b.Op("Dropout", {"x"}, {"dr", "mask"});
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Dims(g, "s0"), (Shape{2, 4, 8, 8}));
  EXPECT_EQ(Dims(g, "s2"), (Shape{2, 2, 8, 8}));
  EXPECT_EQ(Dims(g, "up"), (Shape{2, 10, 16, 16}));
  EXPECT_EQ(Dims(g, "down"), (Shape{2, 10, 5, 5}));
  EXPECT_EQ(Dims(g, "vals"), (Shape{2, 10, 8, 3}));
  EXPECT_EQ(g.FindTensor("idx")->dtype, DType::kInt64);
  EXPECT_EQ(Dims(g, "rs"), (Shape{2, 1, 8, 1}));
  EXPECT_EQ(Dims(g, "rm"), (Shape{2, 10}));
  EXPECT_EQ(Dims(g, "am"), (Shape{2, 1, 8, 8}));
  EXPECT_EQ(g.FindTensor("mask")->dtype, DType::kBool);
}

TEST(ShapeRulesTest, RandomTensors) {
  GraphBuilder b;
  b.Input("x", {2, 1, 1});
  b.Op("RandomUniformLike", {"x"}, {"u"});
  SetInt(b.Op("RandomNormalLike", {"x"}, {"n"}), "dtype", 10);  // float16
  b.Op("Bernoulli", {"x"}, {"bern"});
  SetInts(b.Op("RandomUniform", {}, {"fixed"}), "shape", {3, 4});
  b.Op("RandomNormal", {}, {"noshape"});
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'shape' is missing"), std::string::npos) << s.message();
  g.nodes.pop_back();
  s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Dims(g, "u"), (Shape{2, 1, 1}));
  EXPECT_EQ(g.FindTensor("u")->dtype, DType::kFloat32);
  EXPECT_EQ(g.FindTensor("n")->dtype, DType::kFloat16);
  EXPECT_EQ(Dims(g, "bern"), (Shape{2, 1, 1}));
  EXPECT_EQ(Dims(g, "fixed"), (Shape{3, 4}));
}

TEST(ShapeRulesTest, NonConstantShapeInputIsAnError) {
  GraphBuilder b;
  b.Input("x", {2, 3}).Input("s", {2}, DType::kInt64);
  b.Op("Reshape", {"x", "s"}, {"y"});
  Status s = InferShapes(b.graph(), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'s'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("constant"), std::string::npos) << s.message();
}

TEST(ShapeRulesTest, OverflowAndNegativeDimsAreErrors) {
  GraphBuilder b;
  b.Input("x", {1}).Ints("big", {int64_t{1} << 40, int64_t{1} << 40});
  b.Op("Expand", {"x", "big"}, {"y"});
  Status s = InferShapes(b.graph(), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("node 'Expand_0'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'y'"), std::string::npos) << s.message();

  GraphBuilder n;
  n.Input("x", {1, 1, 2, 2});
  Node& pad = n.Op("Pad", {"x", "pads"}, {"y"});
  (void)pad;
  n.Ints("pads", {0, 0, -2, 0, 0, 0, -2, 0});
  Status s2 = InferShapes(n.graph(), nullptr);
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.message().find("negative dim"), std::string::npos) << s2.message();
}

// A folded integer ReduceProd past int64 saturates instead of converting an
// out-of-range double (undefined; found by fuzz/onnx_graph_fuzz).
TEST(ShapeRulesTest, FoldedReduceProdSaturates) {
  GraphBuilder b;
  b.Ints("big", {int64_t{1} << 40, int64_t{1} << 40, -(int64_t{1} << 40)}, {3});
  b.Op("ReduceProd", {"big"}, {"prod"});
  SetInt(Last(b), "keepdims", 0);
  Graph& g = b.graph();
  Status s = InferShapes(g, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Ints(g, "prod"), (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
}

TEST(ShapeRulesTest, UnknownOpWithoutFallbackNamesNodeAndOp) {
  GraphBuilder b;
  b.Input("x", {2});
  b.Op("Frobnicate", {"x"}, {"y"});
  Status s = InferShapes(b.graph(), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node 'Frobnicate_0'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("no shape rule for Frobnicate"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
