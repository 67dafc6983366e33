// Kernel classes from names. The patterns come from the kernels cuDNN 9,
// cuBLAS(Lt) 12/13 and PyTorch 2.x launch on Ampere and Hopper (the committed
// traces under tests/data/traces); the order of the tests matters because
// names nest (a cuDNN batch-norm kernel's parameters mention cudnnTensorStruct,
// a cuDNN convolution may be an "implicit_gemm").
#include "kernel_class.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace dlsim {
namespace {

std::string Lower(const std::string& s) {
  std::string out = s;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

class Name {
 public:
  explicit Name(const std::string& name) : lower_(Lower(name)) {}
  bool Has(const char* part) const { return lower_.find(part) != std::string::npos; }
  template <typename... Parts>
  bool Any(Parts... parts) const { return (Has(parts) || ...); }

 private:
  std::string lower_;
};

KernelClass ClassifyLibraryKernel(const Name& n) {
  if (n.Any("nchwtonhwc", "nhwctonchw") || (n.Has("cudnn") && n.Has("transpose"))) {
    return KernelClass::kLayout;
  }
  if (n.Any("sdpa", "flash", "fmha", "attention")) return KernelClass::kAttention;
  if (n.Any("layer_norm", "layernorm", "rms_norm", "rmsnorm", "group_norm", "groupnorm",
            "rowwisemoments", "computefusedparams", "computeinternalgradients",
            "computebackwardfusedparams")) {
    return KernelClass::kLayerNorm;  // group norm's statistics and fused parameters too
  }
  if (n.Any("bn_fw", "bn_bw", "batch_norm", "batchnorm")) return KernelClass::kBatchNorm;
  if (n.Has("softmax")) return KernelClass::kSoftmax;
  if (n.Any("rnn", "lstm", "gru_")) return KernelClass::kRnn;
  if (n.Any("fprop", "dgrad", "wgrad", "implicit_gemm", "implicit_convolve", "winograd", "conv2d",
            "convolution", "depthwise", "im2col", "col2im") ||
      (n.Has("cudnn") && n.Has("fft"))) {
    return KernelClass::kConv;
  }
  if (n.Any("splitkreduce", "splitk_reduce", "scal_kernel", "cublaslt::epilogue")) return KernelClass::kGemmAux;
  if (n.Any("gemm", "nvjet", "cutlass", "cublas", "matmul", "gemv")) return KernelClass::kGemm;
  return KernelClass::kOther;
}

}  // namespace

const char* KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kConv: return "conv";
    case KernelClass::kLayout: return "layout";
    case KernelClass::kGemm: return "gemm";
    case KernelClass::kGemmAux: return "gemm_aux";
    case KernelClass::kAttention: return "attention";
    case KernelClass::kBatchNorm: return "batch_norm";
    case KernelClass::kLayerNorm: return "layer_norm";
    case KernelClass::kSoftmax: return "softmax";
    case KernelClass::kPool: return "pool";
    case KernelClass::kReduction: return "reduction";
    case KernelClass::kRnn: return "rnn";
    case KernelClass::kCopy: return "copy";
    case KernelClass::kElementwise: return "elementwise";
    case KernelClass::kOptimizer: return "optimizer";
    case KernelClass::kOther: return "other";
  }
  return "other";
}

KernelClass ClassifyKernel(const std::string& kernel_name) {
  const Name n(kernel_name);
  if (n.Any("multi_tensor_apply", "fused_adam", "fused_sgd")) return KernelClass::kOptimizer;
  const KernelClass library = ClassifyLibraryKernel(n);
  if (library != KernelClass::kOther) return library;
  if (n.Has("pool")) return KernelClass::kPool;
  if (n.Any("reduce", "reduction")) return KernelClass::kReduction;
  if (n.Any("copy", "gather", "scatter", "catarray", "cat_", "index", "transpose", "pad",
            "fill", "roll", "flip")) {
    return KernelClass::kCopy;
  }
  if (n.Any("elementwise", "pointwise", "vectorized", "unrolled", "activation", "relu", "gelu",
            "sigmoid", "tanh", "clamp")) {
    return KernelClass::kElementwise;
  }
  return KernelClass::kOther;
}

bool ClassCanImplement(KernelClass c, KernelKind kind) {
  using C = KernelClass;
  using K = KernelKind;
  switch (kind) {
    case K::kConvFwd:
    case K::kConvBiasAct:
    case K::kConvBwdData:
    case K::kConvBwdFilter:
      return c == C::kConv || c == C::kLayout || c == C::kGemm || c == C::kGemmAux;
    case K::kGemm:
    case K::kBatchedGemm:
      return c == C::kGemm || c == C::kGemmAux || c == C::kAttention;
    case K::kBatchNormInfer:
    case K::kBatchNormTrainFwd:
    case K::kBatchNormBwd:
      return c == C::kBatchNorm;
    case K::kPoolFwd:
    case K::kPoolBwd:
      return c == C::kPool || c == C::kReduction;
    case K::kSoftmaxFwd:
    case K::kSoftmaxBwd:
      return c == C::kSoftmax || c == C::kAttention;
    case K::kLayerNormFwd:
    case K::kLayerNormBwd:
      return c == C::kLayerNorm;
    case K::kGroupNormFwd:  // statistics, then the affine as a pointwise kernel
    case K::kGroupNormBwd:
      return c == C::kLayerNorm || c == C::kElementwise;
    case K::kLrnFwd:
      return c == C::kElementwise || c == C::kOther;
    case K::kRnnFwd:
    case K::kRnnBwdData:
    case K::kRnnBwdWeights:
      return c == C::kRnn || c == C::kGemm || c == C::kElementwise;
    case K::kAttentionFwd:
    case K::kAttentionBwd:
      return c == C::kAttention || c == C::kGemm || c == C::kElementwise || c == C::kReduction;
    case K::kElementwise:
      return c == C::kElementwise || c == C::kCopy;
    case K::kReduction:
      return c == C::kReduction || c == C::kPool;
    case K::kCopy:
      return c == C::kCopy || c == C::kElementwise;
    case K::kOptimizer:
      return c == C::kOptimizer || c == C::kElementwise;
  }
  return false;
}

bool ClassCanExtend(KernelClass c, KernelKind kind) {
  using K = KernelKind;
  switch (kind) {
    case K::kGemm:
    case K::kBatchedGemm:
      return c == KernelClass::kGemmAux;
    case K::kElementwise:
    case K::kCopy:
      return false;
    default:
      return ClassCanImplement(c, kind);
  }
}

std::string ShortKernelName(const std::string& kernel_name) {
  std::string s = kernel_name;
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  const size_t cut = s.find_first_of("<(");
  std::string base = s.substr(0, cut);
  if (cut == std::string::npos || s[cut] != '<') return base;
  // Generic wrappers: the interesting part is a template argument.
  static const std::regex kInner(
      "(cutlass_[A-Za-z0-9_]+|[A-Za-z0-9]+Functor[A-Za-z0-9_]*|launch_[a-z_]+|"
      "[A-Za-z0-9_]+_kernel_cuda|[A-Za-z]+KernelImpl|[A-Za-z]+Ops)");
  std::smatch m;
  if (std::regex_search(s, m, kInner)) return base + "[" + m.str(1) + "]";
  return base;
}

}  // namespace dlsim
