#include "device_info.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include "cuda_util.h"
#include "records.h"

namespace dlcal {

Status QueryDeviceInfo(const Context& ctx, DeviceInfo* info) {
  cudaDeviceProp p{};
  CAL_CUDA(cudaGetDeviceProperties(&p, ctx.device));
  info->name = p.name;
  info->cc = std::to_string(p.major) + "." + std::to_string(p.minor);
  info->sms = p.multiProcessorCount;
  info->mem_bytes = static_cast<double>(p.totalGlobalMem);
  info->l2_bytes = p.l2CacheSize;
  info->bus_width_bits = p.memoryBusWidth;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ctx.device) == cudaSuccess) {
    info->clock_mhz = khz / 1000.0;
  }
  cudaGetLastError();
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ctx.device) == cudaSuccess) {
    info->mem_clock_mhz = khz / 1000.0;
  }
  cudaGetLastError();
  int v = 0;
  CAL_CUDA(cudaDriverGetVersion(&v));
  info->driver = CudaVersionText(v);
  CAL_CUDA(cudaRuntimeGetVersion(&v));
  info->cuda = CudaVersionText(v);
  info->cudnn = LibVersionText(static_cast<int>(cudnnGetVersion()));
  info->cublas = "unknown";
  if (ctx.cublas != nullptr && cublasGetVersion(ctx.cublas, &v) == CUBLAS_STATUS_SUCCESS) {
    info->cublas = LibVersionText(v);
  }
  return Status::Ok();
}

}  // namespace dlcal
