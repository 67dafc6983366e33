#include "cupti_tracer.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#ifndef DLSIM_CAL_NO_CUPTI
#include <cupti.h>
#endif

#include "cuda_util.h"

namespace dlcal {

std::string ShortKernelName(const char* mangled, size_t max_chars) {
  if (mangled == nullptr) return "?";
  int st = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &st);
  std::string name = (st == 0 && d != nullptr) ? d : mangled;
  std::free(d);
  // Drop the trailing "(params)": the kernel's identity is its name and
  // template arguments.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  if (name.size() > max_chars) name = name.substr(0, max_chars - 3) + "...";
  return name;
}

#ifdef DLSIM_CAL_NO_CUPTI

bool KernelTracer::Init(std::string* error) {
  *error = "built without CUPTI";
  return false;
}

Status KernelTracer::Trace(const std::function<Status()>& fn, std::vector<KernelTime>*) {
  return fn();
}

#else

namespace {

struct Collected {
  uint64_t start;
  uint64_t end;
  std::string name;
};

std::mutex g_mu;
std::vector<Collected> g_kernels;
constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI wants 8-byte aligned buffers.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
      g_kernels.push_back({k->start, k->end, ShortKernelName(k->name)});
    }
  }
  std::free(buffer);
}

std::string CuptiText(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

}  // namespace

bool KernelTracer::Init(std::string* error) {
  CUptiResult r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  if (r != CUPTI_SUCCESS) {
    *error = "cuptiActivityRegisterCallbacks: " + CuptiText(r);
    return false;
  }
  ready_ = true;
  return true;
}

Status KernelTracer::Trace(const std::function<Status()>& fn, std::vector<KernelTime>* out) {
  if (!ready_) return fn();
  CAL_CUDA(cudaDeviceSynchronize());
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_kernels.clear();
  }
  CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) return Failed("cuptiActivityEnable: " + CuptiText(r));
  Status st = fn();
  Status sync = CudaStatus(cudaDeviceSynchronize(), "synchronize after the traced call");
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  CAL_RETURN_IF_ERROR(st);
  CAL_RETURN_IF_ERROR(sync);
  if (r != CUPTI_SUCCESS) return Failed("cuptiActivityFlushAll: " + CuptiText(r));
  std::lock_guard<std::mutex> lock(g_mu);
  std::sort(g_kernels.begin(), g_kernels.end(),
            [](const Collected& a, const Collected& b) { return a.start < b.start; });
  for (const auto& k : g_kernels) out->push_back({k.name, (k.end - k.start) * 1e-6});
  g_kernels.clear();
  return Status::Ok();
}

#endif

}  // namespace dlcal
