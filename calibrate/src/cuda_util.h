// CUDA runtime helpers: status conversion, device memory that frees itself,
// and rotating copies of a working set (so small problems are not timed in
// L2; see stats.h RotationCopies).
#ifndef DLSIM_CALIBRATE_CUDA_UTIL_H_
#define DLSIM_CALIBRATE_CUDA_UTIL_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "dtype.h"
#include "status.h"

namespace dlcal {

// Ok, or Failed("<what>: <cuda error text>"); out-of-memory is Failed too,
// and a sticky error that breaks the context is kFatal.
Status CudaStatus(cudaError_t e, const std::string& what);

#define CAL_CUDA(expr) CAL_RETURN_IF_ERROR(::dlcal::CudaStatus((expr), #expr))

// True when the context still works (a tiny allocation, memset and sync
// succeed); false after a sticky error such as an illegal address.
bool ContextHealthy();

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { Reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  Status Allocate(size_t bytes);
  void Reset();
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// `copies` copies of a set of buffers in one allocation, each buffer aligned
// to 256 bytes, all filled with uniform random values.
class RotatingBuffers {
 public:
  struct Spec {
    size_t bytes;
    DType dtype;
    float lo = -1, hi = 1;  // fill range
  };
  // Chooses the copy count from the L2 size, allocates and fills.
  Status Init(const std::vector<Spec>& specs, double l2_bytes, cudaStream_t stream,
              bool rotate = true);
  int copies() const { return copies_; }
  double set_bytes() const { return static_cast<double>(stride_); }
  void* Get(int copy, int index) const {
    return static_cast<char*>(mem_.get()) + static_cast<size_t>(copy % copies_) * stride_ +
           offsets_[index];
  }

 private:
  DeviceBuffer mem_;
  std::vector<size_t> offsets_;
  size_t stride_ = 0;
  int copies_ = 1;
};

// Fills with uniform values in [lo, hi).
Status FillRandom(void* p, size_t bytes, DType t, float lo, float hi, cudaStream_t stream);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_CUDA_UTIL_H_
