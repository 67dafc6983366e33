#include "foreach_optimizer.h"

#include <algorithm>
#include <cmath>

#include "kernel/work.h"

namespace dlsim {
namespace {

constexpr int64_t kChunkElems = 65536;       // multi_tensor_apply's chunk
constexpr int64_t kMaxChunksPerLaunch = 320;  // its block list
// Tensors one launch's metadata holds, by the number of lists (depth).
int64_t MaxTensorsPerLaunch(int lists) { return lists == 1 ? 110 : 64; }

// a, b > 0 (no overflow near INT64_MAX).
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// The calls written for one foreach op at most: 2^14 launches of 320 full
// chunks cover 3.4e11 parameters; past that the launches merge (their bytes
// kept), so that an absurd parameter count cannot fill memory with calls.
constexpr int64_t kMaxCallsPerOp = int64_t{1} << 14;
// Chunk counts are computed in double: exact below 2^53, and no overflow.
constexpr double kMaxExactDouble = 9007199254740992.0;  // 2^53

// One launch of a foreach op over `params` elements of `lists` lists, the
// first updated in place: reads every list, writes the first.
KernelCall ForeachCall(const char* op, int lists, int64_t params, int64_t chunk) {
  KernelCall call;
  call.kind = KernelKind::kOptimizer;
  call.library_call = op;
  call.phase = Phase::kOptimizer;
  call.dtype = DType::kFloat32;
  call.math = MathMode::kFp32;
  call.AddParam("op", op);
  call.AddParam("params", params);
  call.AddParam("fused", 1);
  if (chunk > 0) call.AddParam("chunk", chunk);
  call.bytes_read = 4.0 * lists * params;
  call.bytes_written = 4.0 * params;
  call.flops = CallFlops(call);
  return call;
}

// Every launch of one foreach op, the elements shared evenly between them.
void AddForeachOp(const char* op, int lists, const ParameterTensors& p,
                  std::vector<KernelCall>* calls) {
  const int64_t launches = std::min(ForeachLaunches(p.elements, p.tensors, lists), kMaxCallsPerOp);
  const int64_t chunk = ForeachChunkElements(p.largest_elements);
  for (int64_t i = 0; i < launches; ++i) {
    const int64_t n = p.elements / launches + (i < p.elements % launches ? 1 : 0);
    calls->push_back(ForeachCall(op, lists, n, chunk));
  }
}

}  // namespace

int64_t ForeachChunks(int64_t param_count, int64_t tensor_count) {
  const double tensors = static_cast<double>(std::max<int64_t>(tensor_count, 1));
  const double params = static_cast<double>(std::max<int64_t>(param_count, 0));
  // Full chunks, and half a chunk more per tensor for its last, partial one;
  // the divisor is 2^17, so the quotient is exact wherever the sum is.
  const double chunks = std::ceil((2 * params + tensors * kChunkElems) / (2.0 * kChunkElems));
  return static_cast<int64_t>(std::min(std::max(tensors, chunks), kMaxExactDouble));
}

int64_t ForeachLaunches(int64_t param_count, int64_t tensor_count, int lists) {
  const int64_t tensors = std::max<int64_t>(tensor_count, 1);
  return std::max(CeilDiv(ForeachChunks(param_count, tensors), kMaxChunksPerLaunch),
                  CeilDiv(tensors, MaxTensorsPerLaunch(lists)));
}

int64_t ForeachChunkElements(int64_t largest_tensor_elements) {
  return std::clamp<int64_t>(largest_tensor_elements, 0, kChunkElems);
}

std::vector<KernelCall> ForeachSgdCalls(bool momentum, const ParameterTensors& params) {
  std::vector<KernelCall> calls;
  if (momentum) {
    AddForeachOp("foreach_mul", 1, params, &calls);  // buf *= momentum
    AddForeachOp("foreach_add", 2, params, &calls);  // buf += grad
  }
  AddForeachOp("foreach_add", 2, params, &calls);  // param -= lr * buf
  return calls;
}

}  // namespace dlsim
