#include "session.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include "cuda_util.h"
#include "cudnn_util.h"
#include "device_info.h"

namespace dlcal {

int CudaDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

Session::~Session() {
  if (ctx_.cublas) cublasDestroy(ctx_.cublas);
  if (ctx_.cudnn) cudnnDestroy(ctx_.cudnn);
  if (ctx_.stream) cudaStreamDestroy(ctx_.stream);
}

Status Session::Open(int device, bool want_cupti, const TimingConfig& timing) {
  int count = CudaDeviceCount();
  if (count == 0) return Failed("no CUDA device (cudaGetDeviceCount found none)");
  if (device < 0 || device >= count) {
    return Failed("device " + std::to_string(device) + " out of range (" +
                  std::to_string(count) + " devices)");
  }
  if (want_cupti && !tracer_.Init(&cupti_error_)) want_cupti = false;
  ctx_.device = device;
  CAL_CUDA(cudaSetDevice(device));
  CAL_CUDA(cudaStreamCreateWithFlags(&ctx_.stream, cudaStreamNonBlocking));
  CAL_CUDNN(cudnnCreate(&ctx_.cudnn));
  CAL_CUDNN(cudnnSetStream(ctx_.cudnn, ctx_.stream));
  cublasStatus_t cs = cublasCreate(&ctx_.cublas);
  if (cs != CUBLAS_STATUS_SUCCESS) {
    ctx_.cublas = nullptr;
    return Failed(std::string("cublasCreate: ") + cublasGetStatusString(cs));
  }
  cs = cublasSetStream(ctx_.cublas, ctx_.stream);
  if (cs != CUBLAS_STATUS_SUCCESS) {
    return Failed(std::string("cublasSetStream: ") + cublasGetStatusString(cs));
  }
  // A fixed 32 MiB workspace, as PyTorch gives cuBLAS on Hopper; it also
  // keeps cuBLAS from allocating inside a captured CUDA graph.
  constexpr size_t kCublasWorkspace = 32 << 20;
  CAL_RETURN_IF_ERROR(cublas_workspace_.Allocate(kCublasWorkspace));
  cs = cublasSetWorkspace(ctx_.cublas, cublas_workspace_.get(), kCublasWorkspace);
  if (cs != CUBLAS_STATUS_SUCCESS) {
    return Failed(std::string("cublasSetWorkspace: ") + cublasGetStatusString(cs));
  }
  CAL_RETURN_IF_ERROR(QueryDeviceInfo(ctx_, &info_));
  ctx_.l2_bytes = info_.l2_bytes > 0 ? info_.l2_bytes : 50.0 * (1 << 20);
  ctx_.mem_bytes = info_.mem_bytes;
  ctx_.timing = timing;
  ctx_.tracer = want_cupti ? &tracer_ : nullptr;
  return Status::Ok();
}

}  // namespace dlcal
