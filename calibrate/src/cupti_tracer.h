// Kernel names and durations of one instrumented call, from the CUPTI
// activity API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
#ifndef DLSIM_CALIBRATE_CUPTI_TRACER_H_
#define DLSIM_CALIBRATE_CUPTI_TRACER_H_

#include <functional>
#include <string>
#include <vector>

#include "context.h"
#include "status.h"

namespace dlcal {

class KernelTracer {
 public:
  // Registers the activity buffers; false (with a message) when CUPTI is
  // missing or refuses, in which case records carry no kernel names.
  bool Init(std::string* error);
  // Runs `fn` (which enqueues work), waits for the device and returns the
  // kernels it launched in launch order. Only kernels are recorded.
  Status Trace(const std::function<Status()>& fn, std::vector<KernelTime>* kernels);

 private:
  bool ready_ = false;
};

// Demangled name without its parameter list, at most `max_chars` long.
std::string ShortKernelName(const char* mangled, size_t max_chars = 200);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_CUPTI_TRACER_H_
