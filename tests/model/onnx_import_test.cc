// LoadOnnxModel on the generated models in tests/data/models/
// (tools/make_test_models.py): graph structure, input shapes, external data
// and malformed files.
#include "dlsim/model/onnx_import.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scratch_dir.h"
#include <limits>

namespace dlsim {
namespace {

namespace fs = std::filesystem;

std::string ModelPath(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/models/" + name;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Result<Graph> Load(const std::string& name, int64_t batch = 0,
                   ShapeInferenceReport* report = nullptr) {
  ImportOptions options;
  options.batch = batch;
  return LoadOnnxModel(ModelPath(name), options, report);
}

const Shape& DimsOf(const Graph& g, const std::string& tensor) {
  const Tensor* t = g.FindTensor(tensor);
  EXPECT_NE(t, nullptr) << tensor;
  static const Shape kNone = {-999};
  return t == nullptr ? kNone : t->dims;
}

void ExpectError(const Result<Graph>& g, StatusCode code, std::vector<std::string> parts) {
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), code) << g.status().ToString();
  for (const std::string& part : parts) {
    EXPECT_NE(g.status().message().find(part), std::string::npos)
        << "'" << part << "' not in: " << g.status().message();
  }
}

// Found by onnx_graph_fuzz (UBSan: signed overflow): huge initializers
// saturate the count instead of overflowing it.
TEST(GraphTest, ParameterCountSaturates) {
  Graph g;
  for (const char* name : {"a", "b"}) {
    Tensor& t = g.tensors[name];
    t.name = name;
    t.is_initializer = true;
    t.dtype = DType::kFloat32;
    t.dims = {int64_t{1} << 62, 2};
  }
  EXPECT_EQ(g.ParameterCount(), std::numeric_limits<int64_t>::max());
}

TEST(OnnxImportTest, TinyCnnGraphFields) {
  auto g = Load("tiny_cnn_opset17.onnx", 16);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->name, "tiny_cnn");
  EXPECT_EQ(g->opset, 17);
  EXPECT_EQ(g->source_path, ModelPath("tiny_cnn_opset17.onnx"));
  EXPECT_EQ(g->inputs, (std::vector<std::string>{"input"}));
  EXPECT_EQ(g->outputs, (std::vector<std::string>{"logits"}));
  ASSERT_EQ(g->nodes.size(), 8u);
  EXPECT_EQ(g->nodes[1].name, "Relu_1");  // unnamed in the file
  EXPECT_EQ(g->nodes[0].GetInts("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(g->nodes[3].GetString("auto_pad", ""), "SAME_UPPER");
  const Tensor* w1 = g->FindTensor("w1");
  ASSERT_NE(w1, nullptr);
  EXPECT_TRUE(w1->is_initializer);
  EXPECT_EQ(w1->dims, (Shape{8, 3, 3, 3}));
  ASSERT_TRUE(w1->value.has_value());  // 216 inline elements: read
  EXPECT_FLOAT_EQ(w1->value->floats[0], 0.01f);
  EXPECT_TRUE(g->FindTensor("input")->is_graph_input);
  EXPECT_EQ(g->ParameterCount(), 216 + 8 + 16 * 8 * 9 + 4 * 16 + 160 + 10);
  EXPECT_EQ(DimsOf(*g, "input"), (Shape{16, 3, 32, 32}));
  EXPECT_EQ(DimsOf(*g, "c1"), (Shape{16, 8, 32, 32}));
  EXPECT_EQ(DimsOf(*g, "p1"), (Shape{16, 8, 16, 16}));
  EXPECT_EQ(DimsOf(*g, "c2"), (Shape{16, 16, 8, 8}));
  EXPECT_EQ(DimsOf(*g, "gap"), (Shape{16, 16, 1, 1}));
  EXPECT_EQ(DimsOf(*g, "flat"), (Shape{16, 16}));
  EXPECT_EQ(DimsOf(*g, "logits"), (Shape{16, 10}));
  EXPECT_EQ(g->FindTensor("logits")->dtype, DType::kFloat32);
}

TEST(OnnxImportTest, Opset11AndSymbolicBatchDefaultsToOne) {
  auto g = Load("tiny_cnn_opset11.onnx");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->opset, 11);
  EXPECT_EQ(DimsOf(*g, "logits"), (Shape{1, 10}));
}

TEST(OnnxImportTest, TwoBranchIsSortedTopologically) {
  auto g = Load("two_branch.onnx", 4);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<std::string> order;
  for (const Node& n : g->nodes) order.push_back(n.name);
  EXPECT_EQ(order, (std::vector<std::string>{"stem", "branch_b", "branch_a", "join"}));
  EXPECT_EQ(DimsOf(*g, "output"), (Shape{4, 16}));
}

TEST(OnnxImportTest, InputShapesOverrideBatch) {
  ImportOptions options;
  options.batch = 16;
  options.input_shapes["x"] = {3, 24, 64};
  auto g = LoadOnnxModel(ModelPath("attention_opset17.onnx"), options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(DimsOf(*g, "x"), (Shape{3, 24, 64}));
  EXPECT_EQ(DimsOf(*g, "y"), (Shape{3, 24, 64}));
}

TEST(OnnxImportTest, SymbolicNonBatchDimIsAnError) {
  ExpectError(Load("attention_opset17.onnx", 2), StatusCode::kInvalidArgument,
              {"attention_opset17.onnx", "input 'x' dim 1", "'sequence'", "--input x:"});
}

TEST(OnnxImportTest, NamedDimSetsSymbolicDim) {
  ImportOptions options;
  options.batch = 2;
  options.named_dims["sequence"] = 24;
  auto g = LoadOnnxModel(ModelPath("attention_opset17.onnx"), options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(DimsOf(*g, "x"), (Shape{2, 24, 64}));
  EXPECT_EQ(DimsOf(*g, "y"), (Shape{2, 24, 64}));
}

TEST(OnnxImportTest, SymbolicDimErrorNamesTheDimOption) {
  ExpectError(Load("attention_opset17.onnx", 2), StatusCode::kInvalidArgument,
              {"--dim sequence=<n>"});
}

TEST(OnnxImportTest, NamedDimNoInputCarriesIsAnError) {
  ImportOptions options;
  options.named_dims["seq"] = 24;
  ExpectError(LoadOnnxModel(ModelPath("attention_opset17.onnx"), options),
              StatusCode::kInvalidArgument, {"attention_opset17.onnx", "--dim names 'seq'", "sequence"});
}

TEST(OnnxImportTest, InputShapeForUnknownNameIsAnError) {
  ImportOptions options;
  options.input_shapes["input_ids"] = {1, 2};
  ExpectError(LoadOnnxModel(ModelPath("tiny_cnn_opset17.onnx"), options),
              StatusCode::kInvalidArgument, {"'input_ids'", "not a graph input", "input"});
}

TEST(OnnxImportTest, InputShapeOfWrongRankIsAnError) {
  ImportOptions options;
  options.input_shapes["input"] = {1, 3, 32};
  ExpectError(LoadOnnxModel(ModelPath("tiny_cnn_opset17.onnx"), options),
              StatusCode::kInvalidArgument, {"'input'", "rank 4"});
}

TEST(OnnxImportTest, AbsentExternalDataLoads) {
  auto g = Load("external_absent.onnx", 8);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Tensor* w = g->FindTensor("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dims, (Shape{32, 64}));
  EXPECT_FALSE(w->value.has_value());
  EXPECT_EQ(g->ParameterCount(), 32 * 64 + 64);
  EXPECT_EQ(DimsOf(*g, "output"), (Shape{8, 64}));
  ASSERT_TRUE(Load("external_subdir.onnx").ok());
}

TEST(OnnxImportTest, ExternalDataOutsideTheFolderIsRefused) {
  ExpectError(Load("external_evil.onnx"), StatusCode::kInvalidArgument,
              {"external_evil.onnx", "tensor 'w'", "'../evil.bin'"});
  ExpectError(Load("external_absolute.onnx"), StatusCode::kInvalidArgument,
              {"external_absolute.onnx", "tensor 'w'", "'/etc/passwd'", "absolute"});
}

// A symlink inside the model folder that points outside it is refused, both
// as the file itself and as a folder on the way.
TEST(OnnxImportTest, ExternalDataSymlinkOutsideIsRefused) {
  const fs::path root = testing::ScratchDir() / "external";
  fs::remove_all(root);
  fs::create_directories(root / "model");
  fs::create_directories(root / "outside");
  fs::copy_file(ModelPath("external_absent.onnx"), root / "model" / "external_absent.onnx");
  fs::create_symlink(root / "outside" / "secret.bin", root / "model" / "external_absent.bin");
  ExpectError(LoadOnnxModel((root / "model" / "external_absent.onnx").string(), {}),
              StatusCode::kInvalidArgument, {"tensor 'w'", "outside the model folder"});
  fs::copy_file(ModelPath("external_subdir.onnx"), root / "model" / "external_subdir.onnx");
  fs::create_directory_symlink(root / "outside", root / "model" / "weights");
  ExpectError(LoadOnnxModel((root / "model" / "external_subdir.onnx").string(), {}),
              StatusCode::kInvalidArgument, {"'weights/external_subdir.bin'", "outside"});
  // A symlink that stays inside the folder is fine.
  fs::remove(root / "model" / "external_absent.bin");
  fs::create_symlink("real.bin", root / "model" / "external_absent.bin");
  EXPECT_TRUE(LoadOnnxModel((root / "model" / "external_absent.onnx").string(), {}).ok());
  fs::remove_all(root);
}

TEST(OnnxImportTest, MissingEmptyTruncatedAndRandomFiles) {
  ExpectError(Load("no_such_model.onnx"), StatusCode::kNotFound, {"no_such_model.onnx"});
  ExpectError(LoadOnnxModelFromBytes("", "empty.onnx", {}), StatusCode::kParseError,
              {"empty.onnx", "empty"});
  const std::string good = ReadBytes(ModelPath("tiny_cnn_opset17.onnx"));
  ASSERT_GT(good.size(), 1000u);
  for (size_t cut : {good.size() / 2, good.size() - 7, size_t{3}}) {
    auto g = LoadOnnxModelFromBytes(good.substr(0, cut), "cut.onnx", {});
    ASSERT_FALSE(g.ok()) << cut;
    EXPECT_NE(g.status().message().find("cut.onnx"), std::string::npos);
  }
  uint32_t state = 12345;
  for (int trial = 0; trial < 50; ++trial) {
    std::string noise(64 + trial * 13, '\0');
    for (char& c : noise) {
      state = state * 1664525u + 1013904223u;
      c = static_cast<char>(state >> 24);
    }
    auto g = LoadOnnxModelFromBytes(noise, "noise.onnx", {});
    ASSERT_FALSE(g.ok()) << trial;
    EXPECT_NE(g.status().message().find("noise.onnx"), std::string::npos);
  }
}

TEST(OnnxImportTest, BadGraphs) {
  ExpectError(Load("bad_cycle.onnx"), StatusCode::kInvalidArgument,
              {"bad_cycle.onnx", "cycle", "loop_"});
  ExpectError(Load("bad_dangling.onnx"), StatusCode::kInvalidArgument,
              {"bad_dangling.onnx", "node 'add_ghost'", "'ghost'"});
  ExpectError(Load("bad_duplicate_output.onnx"), StatusCode::kInvalidArgument,
              {"bad_duplicate_output.onnx", "'output'", "'first'", "'second'"});
  ExpectError(Load("bad_matmul_dims.onnx"), StatusCode::kInvalidArgument,
              {"bad_matmul_dims.onnx", "node 'bad_matmul'", "1x3", "5x4"});
}

// Model-local functions are inlined (function_inline.cc): each call's body
// values are its own, attribute references take the call's values.
TEST(OnnxImportTest, LocalFunctionsAreInlined) {
  auto g = Load("local_functions.onnx", 3);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<std::string> names, ops;
  for (const Node& node : g->nodes) {
    names.push_back(node.name);
    ops.push_back(node.op_type);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"block1/mm", "block1/act/leaky", "block2/mm",
                                             "block2/act/leaky"}));
  EXPECT_EQ(ops, (std::vector<std::string>{"MatMul", "LeakyRelu", "MatMul", "LeakyRelu"}));
  EXPECT_EQ(g->nodes[0].inputs, (std::vector<std::string>{"input", "w1"}));
  EXPECT_EQ(g->nodes[3].outputs, (std::vector<std::string>{"output"}));
  EXPECT_NE(g->nodes[0].outputs[0], g->nodes[2].outputs[0]);
  EXPECT_FLOAT_EQ(g->nodes[1].GetFloat("alpha", 0), 0.2f);
  EXPECT_EQ(DimsOf(*g, "mid"), (Shape{3, 16}));
  EXPECT_EQ(DimsOf(*g, "output"), (Shape{3, 4}));
}

TEST(OnnxImportTest, RecursiveLocalFunctionIsAnError) {
  ExpectError(Load("bad_recursive_function.onnx"), StatusCode::kInvalidArgument,
              {"bad_recursive_function.onnx", "function 'Loop'", "calls itself"});
}

TEST(OnnxImportTest, OpWithoutRuleUsesOnnxInference) {
  ShapeInferenceReport report;
  auto g = Load("fallback_eyelike.onnx", 5, &report);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(report.ops_without_rule, (std::vector<std::string>{"EyeLike"}));
  EXPECT_EQ(DimsOf(*g, "output"), (Shape{5, 5}));
  ExpectError(Load("custom_op.onnx"), StatusCode::kUnsupported,
              {"custom_op.onnx", "node 'frob'", "Frobnicate", "com.example"});
}

// Opset 23's Attention, which libonnx 1.12 does not know: dlsim's own rule
// shapes it (3-D q, k, v; 4 query heads over 2 key/value heads; KV cache).
TEST(OnnxImportTest, AttentionOpset23IsShapedByDlsim) {
  ShapeInferenceReport report;
  auto g = Load("attention_opset23.onnx", 3, &report);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->opset, 23);
  EXPECT_TRUE(report.ops_without_rule.empty());
  EXPECT_EQ(DimsOf(*g, "past_key"), (Shape{3, 2, 8, 16}));
  EXPECT_EQ(DimsOf(*g, "q"), (Shape{3, 16, 64}));
  EXPECT_EQ(DimsOf(*g, "k"), (Shape{3, 16, 32}));
  EXPECT_EQ(DimsOf(*g, "attn"), (Shape{3, 16, 64}));
  EXPECT_EQ(DimsOf(*g, "present_key"), (Shape{3, 2, 24, 16}));  // 8 past + 16 new
  EXPECT_EQ(DimsOf(*g, "present_value"), (Shape{3, 2, 24, 16}));
  EXPECT_EQ(DimsOf(*g, "y"), (Shape{3, 16, 64}));
}

TEST(ParseInputSpecTest, ParsesAndRejects) {
  auto spec = ParseInputSpec("input_ids:16x128");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->first, "input_ids");
  EXPECT_EQ(spec->second, (Shape{16, 128}));
  auto one = ParseInputSpec("x.1:7");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->second, (Shape{7}));
  for (const char* bad : {"input_ids", ":16", "x:", "x:16x", "x:16xx2", "x:0x3", "x:-1x3",
                          "x:a", "x:99999999999999999999"}) {
    auto r = ParseInputSpec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message();
  }
}

TEST(ParseDimSpecTest, ParsesAndRejects) {
  auto spec = ParseDimSpec("seq=2048");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->first, "seq");
  EXPECT_EQ(spec->second, 2048);
  for (const char* bad : {"seq", "=4", "seq=", "seq=0", "seq=-1", "seq=a", "seq=99999999999999999999"}) {
    auto r = ParseDimSpec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace dlsim
