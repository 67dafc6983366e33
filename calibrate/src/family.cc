#include "family.h"

namespace dlcal {

Family FamilyOf(dlsim::KernelKind kind) {
  using K = dlsim::KernelKind;
  switch (kind) {
    case K::kConvFwd:
    case K::kConvBiasAct:
    case K::kConvBwdData:
    case K::kConvBwdFilter:
      return Family::kConv;
    case K::kGemm:
    case K::kBatchedGemm:
      return Family::kGemm;
    case K::kBatchNormInfer:
    case K::kBatchNormTrainFwd:
    case K::kBatchNormBwd:
    case K::kPoolFwd:
    case K::kPoolBwd:
    case K::kSoftmaxFwd:
    case K::kSoftmaxBwd:
    case K::kLrnFwd:
      return Family::kNormPool;
    case K::kRnnFwd:
    case K::kRnnBwdData:
    case K::kRnnBwdWeights:
      return Family::kRnn;
    case K::kLayerNormFwd:
    case K::kLayerNormBwd:
    case K::kElementwise:
    case K::kReduction:
    case K::kCopy:
    case K::kOptimizer:
      return Family::kMemory;
    case K::kAttentionFwd:
    case K::kAttentionBwd:
    case K::kGroupNormFwd:  // calibrate/torch_calibrate.py
    case K::kGroupNormBwd:
      return Family::kNone;
  }
  return Family::kNone;
}

const char* FamilyName(Family family) {
  switch (family) {
    case Family::kConv: return "conv";
    case Family::kGemm: return "gemm";
    case Family::kNormPool: return "norm_pool";
    case Family::kRnn: return "rnn";
    case Family::kMemory: return "memory";
    case Family::kNone: return "none";
  }
  return "none";
}

}  // namespace dlcal
