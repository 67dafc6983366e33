// What every measuring family shares: handles, stream, device facts, timing
// settings, the CUPTI tracer; and what a family returns per algorithm.
#ifndef DLSIM_CALIBRATE_CONTEXT_H_
#define DLSIM_CALIBRATE_CONTEXT_H_

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "result.h"
#include "stats.h"
#include "status.h"

// Opaque handle types, as cudnn.h and cublas_api.h declare them.
typedef struct cudnnContext* cudnnHandle_t;
typedef struct cublasContext* cublasHandle_t;

namespace dlcal {

class KernelTracer;

struct TimingConfig {
  int reps = 10;                 // timed regions per measurement
  int min_reps = 3;              // when the budget trims reps
  double region_ms = 1.0;        // each region lasts at least this long
  double budget_ms = 1500;       // per measurement (one algorithm)
  double spread_tolerance = 0.2; // (p90 - p10) / median before re-measuring
};

struct Context {
  int device = 0;
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  KernelTracer* tracer = nullptr;  // null: no kernel names
  double l2_bytes = 50.0 * (1 << 20);
  double mem_bytes = 0;
  TimingConfig timing;
  bool verbose = false;
  bool profile = false;  // print where each key's time goes (profile.h)
  // conv_fwd/conv_bwd_*: the legacy algorithms (conv.cc), or the engine
  // configurations of cuDNN's graph API, as PyTorch runs them (conv_engines.cc).
  bool conv_engines = false;
};

// One call of the kernel under test using working-set copy `copy`.
using CallFn = std::function<Status(int copy)>;

// Warms up, times and traces `call` (see timing.cc); fills the times,
// status and kernels of *result. `copies` rotates inputs; `flush_l2`
// instead times single calls after overwriting L2 (for calls whose state
// cannot be rotated).
void MeasureCall(Context& ctx, const CallFn& call, int copies, bool flush_l2,
                 AlgoResult* result);

// Marks the fastest ok/noisy result.
void MarkFastest(std::vector<AlgoResult>* results);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_CONTEXT_H_
