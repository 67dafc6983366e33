// Kernel classes from the names cuDNN, cuBLAS and PyTorch kernels carry.
#include "kernel/kernel_class.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(KernelClass, LibraryKernels) {
  EXPECT_EQ(ClassifyKernel("sm90_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw"), KernelClass::kConv);
  EXPECT_EQ(ClassifyKernel("void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, true, 1>(float, float, "
                           "cudnnTensorStruct)"),
            KernelClass::kBatchNorm);
  EXPECT_EQ(ClassifyKernel("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3"), KernelClass::kGemm);
  EXPECT_EQ(ClassifyKernel("void cublasLt::splitKreduce_kernel<32, 16, int, float>()"), KernelClass::kGemmAux);
  EXPECT_EQ(ClassifyKernel("void scal_kernel<float, float, 1, true, 6, 5, 5, 3>(cublasTransposeParams<float>)"),
            KernelClass::kGemmAux);
  EXPECT_EQ(ClassifyKernel("void cublasLt::epilogue::impl::globalKernel<8, 32, float>()"), KernelClass::kGemmAux);
  EXPECT_EQ(ClassifyKernel("void cudnn::engines_precompiled::nchwToNhwcKernel<float>()"), KernelClass::kLayout);
  EXPECT_EQ(ClassifyKernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7"),
            KernelClass::kAttention);
  EXPECT_EQ(ClassifyKernel("void (anonymous namespace)::softmax_warp_forward<float, float, float, 7>()"),
            KernelClass::kSoftmax);
}

TEST(KernelClass, FrameworkKernels) {
  EXPECT_EQ(ClassifyKernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()"),
            KernelClass::kElementwise);
  EXPECT_EQ(ClassifyKernel("void at::native::(anonymous namespace)::max_pool_forward_nchw<float>()"),
            KernelClass::kPool);
  EXPECT_EQ(ClassifyKernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, MeanOps>>()"),
            KernelClass::kReduction);
  EXPECT_EQ(ClassifyKernel("void at::native::vectorized_gather_kernel<16, long>()"), KernelClass::kCopy);
  EXPECT_EQ(ClassifyKernel("void at::native::multi_tensor_apply_kernel<TensorListMetadata<3>>()"),
            KernelClass::kOptimizer);
  EXPECT_EQ(ClassifyKernel("mystery"), KernelClass::kOther);
}

TEST(KernelClass, WhatACallMayLaunch) {
  EXPECT_TRUE(ClassCanImplement(KernelClass::kLayout, KernelKind::kConvFwd));
  EXPECT_TRUE(ClassCanImplement(KernelClass::kGemmAux, KernelKind::kGemm));
  EXPECT_TRUE(ClassCanImplement(KernelClass::kAttention, KernelKind::kBatchedGemm));
  EXPECT_TRUE(ClassCanImplement(KernelClass::kAttention, KernelKind::kSoftmaxFwd));
  EXPECT_FALSE(ClassCanImplement(KernelClass::kBatchNorm, KernelKind::kConvFwd));
  EXPECT_FALSE(ClassCanImplement(KernelClass::kConv, KernelKind::kElementwise));
}

TEST(KernelClass, WhatACallMayLaunchMoreOf) {
  EXPECT_TRUE(ClassCanExtend(KernelClass::kLayout, KernelKind::kConvFwd));
  EXPECT_TRUE(ClassCanExtend(KernelClass::kConv, KernelKind::kConvBwdFilter));
  EXPECT_TRUE(ClassCanExtend(KernelClass::kGemmAux, KernelKind::kGemm));
  EXPECT_FALSE(ClassCanExtend(KernelClass::kGemm, KernelKind::kGemm));
  EXPECT_FALSE(ClassCanExtend(KernelClass::kElementwise, KernelKind::kElementwise));
  EXPECT_TRUE(ClassCanExtend(KernelClass::kElementwise, KernelKind::kRnnFwd));
}

TEST(KernelClass, ShortNames) {
  EXPECT_EQ(ShortKernelName("void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, true, 1>(float)"),
            "cudnn::bn_fw_inf_1C11_kernel_NCHW");
  EXPECT_EQ(ShortKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                            "std::array<char*, 3ul> >(int)"),
            "at::native::vectorized_elementwise_kernel[CUDAFunctor_add]");
  EXPECT_EQ(ShortKernelName("sm80_xmma_gemm_f32f32"), "sm80_xmma_gemm_f32f32");
}

}  // namespace
}  // namespace dlsim
