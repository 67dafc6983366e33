#include "gemm_call.h"

#include <utility>

namespace dlsim {

KernelCall GemmCall(const LowerContext& ctx, int64_t batch, int64_t m, int64_t n, int64_t k,
                    bool trans_a, bool trans_b) {
  const bool batched = batch > 1;
  KernelCall call =
      ctx.NewCall(batched ? KernelKind::kBatchedGemm : KernelKind::kGemm,
                  batched ? "cublasGemmStridedBatchedEx" : "cublasGemmEx", GemmMath(ctx.options()));
  if (batched) call.AddParam("batch", batch);
  call.AddParam("m", m);
  call.AddParam("n", n);
  call.AddParam("k", k);
  call.AddParam("trans_a", trans_a ? 1 : 0);
  call.AddParam("trans_b", trans_b ? 1 : 0);
  const double elem = DTypeBytes(ctx.options().dtype);
  // In double: shapes from a damaged file can overflow int64 products.
  const double md = static_cast<double>(m), nd = static_cast<double>(n),
               kd = static_cast<double>(k);
  call.bytes_read = elem * batch * (md * kd + kd * nd);
  call.bytes_written = elem * batch * m * n;
  return call;
}

void AddGemmBackward(const LowerContext& ctx, int64_t batch, int64_t m, int64_t n, int64_t k,
                     bool need_da, bool need_db, std::vector<KernelCall>* calls) {
  if (need_da) {
    KernelCall da = GemmCall(ctx, batch, m, k, n, false, true);
    da.phase = Phase::kBackward;
    calls->push_back(std::move(da));
  }
  if (need_db) {
    KernelCall db = GemmCall(ctx, batch, k, n, m, true, false);
    db.phase = Phase::kBackward;
    calls->push_back(std::move(db));
  }
}

}  // namespace dlsim
