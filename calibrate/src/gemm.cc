// GEMMs through cuBLAS. Keys are row-major, C[m,n] = op(A)[m,k] op(B)[k,n];
// cuBLAS is column-major, so the call computes C^T = op(B)^T op(A)^T: the
// operands swap places and a row-major matrix is its own transpose read
// column-major.
#include <cublas_v2.h>

#include "cuda_util.h"
#include "families.h"

namespace dlcal {
namespace {

Status CublasStatus(cublasStatus_t s, const std::string& what) {
  if (s == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  std::string msg = what + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")";
  if (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE ||
      s == CUBLAS_STATUS_ARCH_MISMATCH) {
    return Unsupported(msg);
  }
  return Failed(msg);
}

struct GemmShape {
  int64_t batch, m, n, k;
  bool ta, tb;
  DType t;
  cudaDataType_t type;
  cublasComputeType_t compute;
};

Status ShapeFromKey(const Key& key, GemmShape* g) {
  g->batch = key.kind == "batched_gemm" ? key.Int("batch") : 1;
  g->m = key.Int("m"), g->n = key.Int("n"), g->k = key.Int("k");
  g->ta = key.Int("trans_a") != 0, g->tb = key.Int("trans_b") != 0;
  if (g->batch < 1 || g->m < 1 || g->n < 1 || g->k < 1) return Unsupported("empty GEMM");
  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX) {
    return Unsupported("dimension over 2^31");
  }
  if (!DTypeFromName(key.dtype, &g->t)) return Unsupported("dtype " + key.dtype);
  switch (g->t) {
    case DType::kF32:
      g->type = CUDA_R_32F;
      if (key.math == "fp32") g->compute = CUBLAS_COMPUTE_32F;  // no TF32
      else if (key.math == "tf32") g->compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      else return Unsupported("math " + key.math + " on fp32 data");
      break;
    case DType::kF16:
      g->type = CUDA_R_16F;
      g->compute = CUBLAS_COMPUTE_32F;
      break;
    case DType::kBF16:
      g->type = CUDA_R_16BF;
      g->compute = CUBLAS_COMPUTE_32F;
      break;
  }
  return Status::Ok();
}

}  // namespace

// FLOPs of a key's GEMM (2 m n k per batch entry); used by probe and tests.
double GemmFlops(const Key& key) {
  double batch = key.kind == "batched_gemm" ? double(key.Int("batch")) : 1.0;
  return 2.0 * batch * double(key.Int("m")) * double(key.Int("n")) * double(key.Int("k"));
}

Status MeasureGemm(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  GemmShape g;
  CAL_RETURN_IF_ERROR(ShapeFromKey(key, &g));
  CAL_RETURN_IF_ERROR(CublasStatus(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH),
                                   "cublasSetMathMode"));
  const size_t es = DTypeSize(g.t);
  const size_t a_bytes = size_t(g.batch * g.m * g.k) * es;
  const size_t b_bytes = size_t(g.batch * g.k * g.n) * es;
  const size_t c_bytes = size_t(g.batch * g.m * g.n) * es;
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(
      buf.Init({{a_bytes, g.t}, {b_bytes, g.t}, {c_bytes, g.t}}, ctx.l2_bytes, ctx.stream));
  // Column-major call: C^T (n x m) = X (n x k) * Y (k x m), X = op(B)^T, Y = op(A)^T.
  const cublasOperation_t op_x = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_y = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  const int ldb = g.tb ? k : n;  // B stored row-major k x n, or n x k when transposed
  const int lda = g.ta ? m : k;  // A stored row-major m x k, or k x m when transposed
  const int ldc = n;
  const bool batched = key.kind == "batched_gemm";
  CallFn call = [&, op_x, op_y, m, n, k, ldb, lda, ldc, batched](int i) -> Status {
    const float one = 1.f, zero = 0.f;
    if (!batched) {
      return CublasStatus(cublasGemmEx(ctx.cublas, op_x, op_y, n, m, k, &one, buf.Get(i, 1),
                                       g.type, ldb, buf.Get(i, 0), g.type, lda, &zero,
                                       buf.Get(i, 2), g.type, ldc, g.compute,
                                       CUBLAS_GEMM_DEFAULT),
                          "cublasGemmEx");
    }
    return CublasStatus(
        cublasGemmStridedBatchedEx(ctx.cublas, op_x, op_y, n, m, k, &one, buf.Get(i, 1), g.type,
                                   ldb, g.k * g.n, buf.Get(i, 0), g.type, lda, g.m * g.k, &zero,
                                   buf.Get(i, 2), g.type, ldc, g.m * g.n, int(g.batch),
                                   g.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
  };
  AlgoResult res;
  res.algo = "cublas_default";
  res.heuristic = true;
  MeasureCall(ctx, call, buf.copies(), false, &res);
  out->push_back(std::move(res));
  MarkFastest(out);
  return Status::Ok();
}

}  // namespace dlcal
