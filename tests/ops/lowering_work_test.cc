// The lowering's FLOPs against WorkOfKey's (src/kernel) for every call of
// every model under tests/data/zoo/ and tests/data/probes/ (batch 2,
// inference and training, fp32 and fp16) and of every optimizer: every
// call's key must have a Work, and every call's FLOPs must be its Work's
// exactly: WorkOfKey is the one formula of a kind (issue 21).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "dlsim/model/onnx_import.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/util/optimizer.h"
#include "kernel/work.h"

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
  std::map<KernelKind, KindTally> tally = TallyAllModels();
  for (Optimizer optimizer :
       {Optimizer::kSgd, Optimizer::kSgdMomentum, Optimizer::kAdam, Optimizer::kAdamW}) {
    for (const KernelCall& call : LowerOptimizer(optimizer, ParameterTensors{1000, 3, 0}, false, LoweringOptions{})) {
      TallyCall("optimizer", call, &tally);
    }
  }
  // Every kind the zoo lowers to is seen, the memory-bound and the compute ones.
  using K = KernelKind;
  for (KernelKind kind :
       {K::kConvFwd, K::kConvBwdData, K::kConvBwdFilter, K::kGemm, K::kBatchedGemm, K::kReduction,
        K::kCopy, K::kBatchNormInfer, K::kBatchNormTrainFwd, K::kBatchNormBwd, K::kPoolFwd,
        K::kPoolBwd, K::kSoftmaxFwd, K::kSoftmaxBwd, K::kLayerNormFwd, K::kLayerNormBwd,
        K::kRnnFwd, K::kRnnBwdData, K::kRnnBwdWeights, K::kAttentionFwd, K::kAttentionBwd,
        K::kElementwise, K::kOptimizer}) {
    EXPECT_NE(tally.count(kind), 0u) << KernelKindName(kind);
  }
  for (const auto& [kind, t] : tally) {
    EXPECT_EQ(t.flops_differ, 0) << KernelKindName(kind) << ": " << t.flops_differ << " of "
                                 << t.calls << " calls differ, e.g. " << t.example;
  }
}

}  // namespace
}  // namespace dlsim
