// Loads the real PyTorch exports under tests/data/zoo/ (graph only, external
// weights absent) and checks that every tensor is shaped statically, with the
// exact output shapes torchvision / Hugging Face give.
#include <gtest/gtest.h>

#include "dlsim/model/onnx_import.h"

namespace dlsim {
namespace {

std::string Zoo(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/zoo/" + name + ".onnx";
}

Graph LoadZoo(const std::string& name, int64_t batch, ShapeInferenceReport* report = nullptr) {
  ImportOptions options;
  options.batch = batch;
  auto graph = LoadOnnxModel(Zoo(name), options, report);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  if (!graph.ok()) return Graph();
  return std::move(graph).value();
}

void ExpectAllShaped(const Graph& g) {
  for (const Node& node : g.nodes) {
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      const Tensor* t = g.FindTensor(out);
      ASSERT_NE(t, nullptr) << out;
      EXPECT_NE(t->dtype, DType::kUndefined) << node.name << " " << out;
    }
  }
}

Shape OutputShape(const Graph& g, size_t i = 0) { return g.FindTensor(g.outputs.at(i))->dims; }

struct ZooCase {
  const char* name;
  int64_t batch;
  Shape output;
};

class ZooTest : public ::testing::TestWithParam<ZooCase> {};

TEST_P(ZooTest, LoadsWithStaticShapes) {
  const ZooCase& c = GetParam();
  ShapeInferenceReport report;
  Graph g = LoadZoo(c.name, c.batch, &report);
  ASSERT_FALSE(g.nodes.empty());
  ExpectAllShaped(g);
  EXPECT_EQ(OutputShape(g), c.output);
  EXPECT_TRUE(report.ops_without_rule.empty()) << c.name << ": " << report.ops_without_rule.front();
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, ZooTest,
    ::testing::Values(
        ZooCase{"alexnet", 4, {4, 1000}}, ZooCase{"vgg16", 2, {2, 1000}},
        ZooCase{"resnet18", 8, {8, 1000}}, ZooCase{"resnet50", 16, {16, 1000}},
        ZooCase{"resnext50_32x4d", 3, {3, 1000}}, ZooCase{"densenet121", 2, {2, 1000}},
        ZooCase{"googlenet", 2, {2, 1000}}, ZooCase{"inception_v3", 2, {2, 1000}},
        ZooCase{"mobilenet_v2", 5, {5, 1000}}, ZooCase{"mobilenet_v3_large", 5, {5, 1000}},
        ZooCase{"shufflenet_v2_x1_0", 7, {7, 1000}}, ZooCase{"squeezenet1_0", 2, {2, 1000}},
        ZooCase{"mnasnet1_0", 2, {2, 1000}}, ZooCase{"efficientnet_b0", 2, {2, 1000}},
        ZooCase{"regnet_y_400mf", 2, {2, 1000}}, ZooCase{"convnext_tiny", 2, {2, 1000}},
        ZooCase{"vit_b_16", 3, {3, 1000}}, ZooCase{"swin_t", 2, {2, 1000}},
        ZooCase{"candle_p1b2_mlp", 32, {32, 10}}, ZooCase{"candle_p3b1_mlp", 32, {32, 16}},
        ZooCase{"candle_nt3_conv1d", 4, {4, 2}}),
    [](const ::testing::TestParamInfo<ZooCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dlsim

namespace dlsim {
namespace {

TEST(ZooNlpTest, BertBaseWithInputShape) {
  ImportOptions options;
  options.input_shapes["input_ids"] = {8, 384};
  auto g = LoadOnnxModel(Zoo("bert_base"), options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectAllShaped(*g);
  EXPECT_EQ(OutputShape(*g), (Shape{8, 384, 768}));
}

TEST(ZooNlpTest, Gpt2Small) {
  ShapeInferenceReport report;
  Graph g = LoadZoo("gpt2_small", 2, &report);
  ExpectAllShaped(g);
  EXPECT_EQ(OutputShape(g), (Shape{2, 256, 768}));  // GPT2Model hidden states
  EXPECT_TRUE(report.ops_without_rule.empty());
}

TEST(ZooNlpTest, LstmAndGru) {
  for (const char* name : {"lstm2", "gru2"}) {
    Graph g = LoadZoo(name, 4);
    ExpectAllShaped(g);
    EXPECT_EQ(OutputShape(g), (Shape{4, 10})) << name;
    for (const Node& node : g.nodes) {
      if (node.op_type != "LSTM" && node.op_type != "GRU") continue;
      const Shape& y = g.FindTensor(node.outputs[0])->dims;
      ASSERT_EQ(y.size(), 4u) << name;
      EXPECT_EQ(y[0], 64) << name;  // seq
      EXPECT_EQ(y[2], 4) << name;   // batch
    }
  }
}

}  // namespace
}  // namespace dlsim
