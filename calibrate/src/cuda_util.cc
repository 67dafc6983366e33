#include "cuda_util.h"

#include <atomic>

#include "kernels.h"
#include "stats.h"

namespace dlcal {

Status CudaStatus(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return Status::Ok();
  std::string msg = what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
      return Status(Code::kFatal, msg);
    default:
      cudaGetLastError();  // clear a non-sticky error so the next call starts clean
      return Failed(msg);
  }
}

bool ContextHealthy() {
  void* p = nullptr;
  if (cudaMalloc(&p, 256) != cudaSuccess) return false;
  bool ok = cudaMemset(p, 1, 256) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
  cudaFree(p);
  return ok;
}

Status DeviceBuffer::Allocate(size_t bytes) {
  Reset();
  if (bytes == 0) bytes = 256;
  cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e != cudaSuccess) {
    ptr_ = nullptr;
    return CudaStatus(e, "cudaMalloc(" + std::to_string(bytes) + " bytes)");
  }
  bytes_ = bytes;
  return Status::Ok();
}

void DeviceBuffer::Reset() {
  if (ptr_ != nullptr) cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

Status FillRandom(void* p, size_t bytes, DType t, float lo, float hi, cudaStream_t stream) {
  static std::atomic<uint64_t> seed{12345};
  size_t n = bytes / DTypeSize(t);
  if (n == 0) return Status::Ok();
  return CudaStatus(LaunchFillUniform(p, n, t, seed++, lo, hi, stream), "fill kernel");
}

Status RotatingBuffers::Init(const std::vector<Spec>& specs, double l2_bytes,
                             cudaStream_t stream, bool rotate) {
  offsets_.clear();
  stride_ = 0;
  for (const auto& s : specs) {
    offsets_.push_back(stride_);
    stride_ += (std::max<size_t>(s.bytes, 1) + 255) / 256 * 256;
  }
  copies_ = rotate ? RotationCopies(static_cast<double>(stride_), l2_bytes, 1 << 20) : 1;
  CAL_RETURN_IF_ERROR(mem_.Allocate(stride_ * static_cast<size_t>(copies_)));
  for (int c = 0; c < copies_; ++c) {
    for (size_t i = 0; i < specs.size(); ++i) {
      // Filling every tiny copy one by one would take many launches.
      if (copies_ > 64) break;
      CAL_RETURN_IF_ERROR(FillRandom(Get(c, static_cast<int>(i)), specs[i].bytes,
                                     specs[i].dtype, specs[i].lo, specs[i].hi, stream));
    }
  }
  if (copies_ > 64) {
    // Many small copies: fill the whole arena in one launch, in the
    // intersection of the buffers' ranges (positive where one must be).
    // A 2-byte fill read as fp32 gives small finite values; an fp32 fill
    // read as fp16 can give NaNs, so a 2-byte dtype wins when present.
    float lo = -1, hi = 1;
    DType t = DType::kF32;
    for (const auto& s : specs) {
      if (s.lo > lo) lo = s.lo;
      if (s.hi < hi) hi = s.hi;
      if (DTypeSize(s.dtype) == 2 && t == DType::kF32) t = s.dtype;
    }
    if (lo >= hi) hi = lo + 1;
    CAL_RETURN_IF_ERROR(FillRandom(mem_.get(), mem_.bytes(), t, lo, hi, stream));
  }
  return CudaStatus(cudaStreamSynchronize(stream), "fill synchronize");
}

}  // namespace dlcal
