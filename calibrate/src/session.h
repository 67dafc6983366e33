// A measuring session on one GPU: stream, cuDNN and cuBLAS handles bound to
// it, device facts, and the CUPTI tracer when it initialises.
#ifndef DLSIM_CALIBRATE_SESSION_H_
#define DLSIM_CALIBRATE_SESSION_H_

#include <string>

#include "context.h"
#include "cuda_util.h"
#include "cupti_tracer.h"
#include "result.h"
#include "status.h"

namespace dlcal {

class Session {
 public:
  Session() = default;
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Fails when no CUDA device is usable. A CUPTI failure is not an error:
  // cupti_error() says why and records carry no kernel names.
  Status Open(int device, bool want_cupti, const TimingConfig& timing);

  Context& ctx() { return ctx_; }
  const DeviceInfo& info() const { return info_; }
  const std::string& cupti_error() const { return cupti_error_; }

 private:
  Context ctx_;
  DeviceInfo info_;
  KernelTracer tracer_;
  DeviceBuffer cublas_workspace_;
  std::string cupti_error_;
};

// Number of usable CUDA devices; 0 when the driver or device is missing.
int CudaDeviceCount();

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_SESSION_H_
