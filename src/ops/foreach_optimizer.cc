#include "foreach_optimizer.h"

#include <algorithm>

#include "dlsim/kernel/work.h"

namespace dlsim {
namespace {

constexpr int64_t kChunkElems = 65536;       // multi_tensor_apply's chunk
constexpr int64_t kMaxChunksPerLaunch = 320;  // its block list
// Tensors one launch's metadata holds, by the number of lists (depth).
int64_t MaxTensorsPerLaunch(int lists) { return lists == 1 ? 110 : 64; }

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One launch of a foreach op over `params` elements of `lists` lists, the
// first updated in place: reads every list, writes the first.
KernelCall ForeachCall(const char* op, int lists, int64_t params) {
  KernelCall call;
  call.kind = KernelKind::kOptimizer;
  call.library_call = op;
  call.phase = Phase::kOptimizer;
  call.dtype = DType::kFloat32;
  call.math = MathMode::kFp32;
  call.AddParam("op", op);
  call.AddParam("params", params);
  call.AddParam("fused", 1);
  call.bytes_read = 4.0 * lists * params;
  call.bytes_written = 4.0 * params;
  call.flops = CallFlops(call);
  return call;
}

// Every launch of one foreach op, the elements shared evenly between them.
void AddForeachOp(const char* op, int lists, int64_t param_count, int64_t tensor_count,
                  std::vector<KernelCall>* calls) {
  const int64_t launches = ForeachLaunches(param_count, tensor_count, lists);
  for (int64_t i = 0; i < launches; ++i) {
    const int64_t n = param_count / launches + (i < param_count % launches ? 1 : 0);
    calls->push_back(ForeachCall(op, lists, n));
  }
}

}  // namespace

int64_t ForeachChunks(int64_t param_count, int64_t tensor_count) {
  const int64_t tensors = std::max<int64_t>(tensor_count, 1);
  return std::max(tensors, CeilDiv(2 * std::max<int64_t>(param_count, 0) + tensors * kChunkElems,
                                   2 * kChunkElems));
}

int64_t ForeachLaunches(int64_t param_count, int64_t tensor_count, int lists) {
  const int64_t tensors = std::max<int64_t>(tensor_count, 1);
  return std::max(CeilDiv(ForeachChunks(param_count, tensors), kMaxChunksPerLaunch),
                  CeilDiv(tensors, MaxTensorsPerLaunch(lists)));
}

std::vector<KernelCall> ForeachSgdCalls(bool momentum, int64_t param_count,
                                        int64_t tensor_count) {
  std::vector<KernelCall> calls;
  if (momentum) {
    AddForeachOp("foreach_mul", 1, param_count, tensor_count, &calls);  // buf *= momentum
    AddForeachOp("foreach_add", 2, param_count, tensor_count, &calls);  // buf += grad
  }
  AddForeachOp("foreach_add", 2, param_count, tensor_count, &calls);  // param -= lr * buf
  return calls;
}

}  // namespace dlsim
