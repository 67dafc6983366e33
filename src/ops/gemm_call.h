// cuBLAS GEMM calls shared by the MatMul/Gemm and Einsum lowerings (private
// to src/ops).
#ifndef DLSIM_SRC_OPS_GEMM_CALL_H_
#define DLSIM_SRC_OPS_GEMM_CALL_H_

#include <cstdint>
#include <vector>

#include "op_registry.h"

namespace dlsim {

// C (m×n) = op(A) (m×k) · op(B) (k×n), `batch` times: cublasGemmEx for a
// batch of 1, else cublasGemmStridedBatchedEx. FLOPs 2·batch·m·n·k; bytes
// at the run dtype: A and B read, C written, once per batch entry.
KernelCall GemmCall(const LowerContext& ctx, int64_t batch, int64_t m, int64_t n, int64_t k,
                    bool trans_a, bool trans_b);

// Appends the backward of C = A·B: dA = dC·Bᵀ (m×k, inner n; only when
// `need_da`) and dB = Aᵀ·dC (k×n, inner m; only when `need_db`), phase
// kBackward.
void AddGemmBackward(const LowerContext& ctx, int64_t batch, int64_t m, int64_t n, int64_t k,
                     bool need_da, bool need_db, std::vector<KernelCall>* calls);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_GEMM_CALL_H_
