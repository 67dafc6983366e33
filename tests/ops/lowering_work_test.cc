// The lowering's FLOPs against WorkOfKey's (src/kernel) for every call of
// every model under tests/data/zoo/ and tests/data/probes/ (batch 2,
// inference and training, fp32 and fp16): every call's key must have a Work, and the
// kinds whose lowering counts FLOPs as WorkOfKey does must agree exactly.
// The kinds in kFlopsDiffer count them differently (the lowering from the
// ONNX shapes and its own per-element costs, WorkOfKey from the key alone);
// the test fails when one of them starts to agree, so the list stays current.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "dlsim/kernel/work.h"
#include "dlsim/model/onnx_import.h"
#include "dlsim/ops/lowering.h"

namespace dlsim {
namespace {

struct KindTally {
  int calls = 0;
  int flops_differ = 0;
  std::string example;  // a key whose FLOPs differ
};

std::vector<std::string> Models() {
  std::vector<std::string> paths;
  for (const char* dir : {"/zoo", "/probes"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(DLSIM_TEST_DATA_DIR) + dir)) {
      if (e.path().extension() == ".onnx") paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

void TallyCall(const std::string& path, const KernelCall& call,
               std::map<KernelKind, KindTally>* tally) {
  const std::string key = call.Key();
  auto parsed = ParseKernelKey(key);
  ASSERT_TRUE(parsed.ok()) << path << ": " << parsed.status().ToString();
  auto work = WorkOfKey(*parsed);
  ASSERT_TRUE(work.ok()) << path << ": " << work.status().ToString();
  KindTally& t = (*tally)[call.kind];
  ++t.calls;
  if (work->flops == call.flops) return;
  ++t.flops_differ;
  if (t.example.empty()) {
    t.example = key + " (lowering " + std::to_string(call.flops) + ", work " +
                std::to_string(work->flops) + ")";
  }
}

std::map<KernelKind, KindTally> TallyAllModels() {
  std::map<KernelKind, KindTally> tally;
  for (const std::string& path : Models()) {
    ImportOptions import;
    import.batch = 2;
    auto graph = LoadOnnxModel(path, import);
    EXPECT_TRUE(graph.ok()) << path << ": " << graph.status().ToString();
    if (!graph.ok()) continue;
    for (int mode = 0; mode < 4; ++mode) {
      LoweringOptions options;
      options.training = mode / 2 == 1;
      options.dtype = mode % 2 == 0 ? DType::kFloat32 : DType::kFloat16;
      auto lowered = LowerGraph(*graph, options);
      EXPECT_TRUE(lowered.ok()) << path << ": " << lowered.status().ToString();
      if (!lowered.ok()) continue;
      for (const LoweredNode& node : lowered->nodes) {
        for (const KernelCall& call : node.calls) TallyCall(path, call, &tally);
      }
    }
  }
  return tally;
}

TEST(LoweringWorkTest, LoweringFlopsEqualWorkOfKey) {
  // The lowering counts with its own constants where WorkOfKey has the
  // key's: softmax 5 FLOPs per element (Work 4), layer norm 8 and 8 (6, 10),
  // batch norm 4/8/10 (2/5/8), RNNs 10 pointwise FLOPs per hidden unit and
  // step on top of the gate GEMMs, attention its softmax, elementwise per op;
  // pooling takes its output size from the ONNX shape (ceil mode,
  // asymmetric pads) where Work recomputes it. Unifying them moves roofline
  // and scaled estimates, so it waits for a change that may move them.
  using K = KernelKind;
  const std::set<KernelKind> kFlopsDiffer = {
      K::kBatchNormInfer, K::kBatchNormTrainFwd, K::kBatchNormBwd, K::kPoolFwd, K::kPoolBwd,
      K::kSoftmaxFwd,     K::kSoftmaxBwd,        K::kLayerNormFwd, K::kLayerNormBwd,
      K::kRnnFwd,         K::kRnnBwdData,        K::kRnnBwdWeights, K::kAttentionFwd,
      K::kAttentionBwd,   K::kElementwise};
  const std::map<KernelKind, KindTally> tally = TallyAllModels();
  // The kinds that agree are all seen.
  for (KernelKind kind : {K::kConvFwd, K::kConvBwdData, K::kConvBwdFilter, K::kGemm,
                          K::kBatchedGemm, K::kReduction, K::kCopy}) {
    EXPECT_NE(tally.count(kind), 0u) << KernelKindName(kind);
  }
  for (const auto& [kind, t] : tally) {
    if (kFlopsDiffer.count(kind) != 0) {
      EXPECT_GT(t.flops_differ, 0) << KernelKindName(kind) << " now agrees: take it off the list";
    } else {
      EXPECT_EQ(t.flops_differ, 0) << KernelKindName(kind) << ": " << t.flops_differ << " of "
                                   << t.calls << " calls differ, e.g. " << t.example;
    }
  }
}

}  // namespace
}  // namespace dlsim
