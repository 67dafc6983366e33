#include "dlsim/distributed/transformer_from_graph.h"

#include <gtest/gtest.h>

#include "dlsim/model/onnx_import.h"

namespace dlsim {
namespace {

Graph Load(const std::string& relative) {
  ImportOptions io;
  io.batch = 1;
  auto g = LoadOnnxModel(std::string(DLSIM_TEST_DATA_DIR) + "/" + relative, io);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(*g) : Graph();
}

TEST(TransformerFromGraphTest, ReadsGpt2Small) {
  auto m = TransformerFromGraph(Load("zoo/gpt2_small.onnx"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->layers, 12);
  EXPECT_EQ(m->hidden, 768);
  EXPECT_EQ(m->heads, 12);
  EXPECT_EQ(m->kv_heads, 12);
  EXPECT_EQ(m->ffn_hidden, 3072);
  EXPECT_FALSE(m->gated_ffn);
  EXPECT_TRUE(m->tied_embeddings);
  EXPECT_EQ(m->vocab, 50257);
  EXPECT_EQ(m->seq_len, 256);
}

TEST(TransformerFromGraphTest, ReadsALlamaWithDecomposedRmsNorm) {
  auto m = TransformerFromGraph(Load("probes/llama_small.onnx"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->layers, 8);
  EXPECT_EQ(m->hidden, 1024);
  EXPECT_EQ(m->heads, 16);
  EXPECT_EQ(m->ffn_hidden, 2816);
  EXPECT_TRUE(m->gated_ffn);
  EXPECT_EQ(m->vocab, 32000);
}

TEST(TransformerFromGraphTest, ACnnIsNotATransformer) {
  auto m = TransformerFromGraph(Load("zoo/resnet18.onnx"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("no transformer found"), std::string::npos);
  EXPECT_NE(m.status().message().find("resnet18.onnx"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
