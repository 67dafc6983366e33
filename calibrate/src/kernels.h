// The CUDA kernels dlsim-calibrate owns (kernels.cu): random fill, the
// memory-bound families (pointwise, reduction, copy, transpose, optimizer
// update), layer norm, and an empty kernel. Each launcher enqueues on
// `stream` and returns cudaGetLastError().
#ifndef DLSIM_CALIBRATE_KERNELS_H_
#define DLSIM_CALIBRATE_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "dtype.h"

namespace dlcal {

// Pointwise ops: the key's `op` only changes the arithmetic.
enum class EwOp { kAdd, kSub, kMul, kDiv, kMax, kRelu, kSigmoid, kTanh, kGelu, kSilu, kExp,
                  kIdentity };
enum class RedOp { kSum, kMean, kMax, kMin };
enum class OptOp { kSgd, kSgdMomentum, kAdam, kAdamW };

constexpr int kMaxArity = 8;

// Uniform values in [lo, hi) from a counter hash of (seed, index).
cudaError_t LaunchFillUniform(void* p, size_t n, DType t, uint64_t seed, float lo, float hi,
                              cudaStream_t stream);
// out[i] = op(in[0][i], ..., in[arity-1][i]); arity 0 writes a constant.
cudaError_t LaunchElementwise(EwOp op, DType t, const void* const* in, int arity, void* out,
                              size_t n, cudaStream_t stream);
// out[r] = op over in[r, 0..cols); rows x cols row-major.
cudaError_t LaunchReduction(RedOp op, DType t, const void* in, void* out, size_t rows,
                            size_t cols, cudaStream_t stream);
cudaError_t LaunchCopy(const void* in, void* out, size_t bytes, cudaStream_t stream);
// out[c, r] = in[r, c] for a rows x cols row-major matrix.
cudaError_t LaunchTranspose(DType t, const void* in, void* out, size_t rows, size_t cols,
                            cudaStream_t stream);
// One update over n parameters; m, v may be null where op does not use them.
cudaError_t LaunchOptimizer(OptOp op, DType t, void* w, const void* g, void* m, void* v,
                            size_t n, cudaStream_t stream);
// y = (x - mean) * rstd * gamma + beta per row; mean/rstd saved (fp32).
cudaError_t LaunchLayerNormFwd(DType t, const void* x, const void* gamma, const void* beta,
                               void* y, float* mean, float* rstd, size_t rows, size_t cols,
                               cudaStream_t stream);
// dx per row, then dgamma/dbeta (fp32, zeroed here) over all rows.
cudaError_t LaunchLayerNormBwd(DType t, const void* x, const void* dy, const void* gamma,
                               const float* mean, const float* rstd, void* dx, float* dgamma,
                               float* dbeta, size_t rows, size_t cols, cudaStream_t stream);
cudaError_t LaunchEmpty(cudaStream_t stream);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_KERNELS_H_
