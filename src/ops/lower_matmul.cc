// Gemm and MatMul -> cuBLAS GEMM (strided-batched for batched MatMul).
#include <algorithm>

#include "gemm_call.h"
#include "op_registry.h"

namespace dlsim {
namespace {

// addmm's backward sums dy (tensor `y`, n columns) over the rows for the
// bias after its GEMMs: a kernel of its own.
KernelCall BiasGradientCall(const LowerContext& ctx, const std::string& y, int64_t n) {
  KernelCall db = ReductionCall(ctx, "sum", ctx.Elems(y), n, ctx.Bytes(y), 0);
  db.phase = Phase::kBackward;
  return db;
}

Status LowerGemm(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  const Shape& a = ctx.T(node.Input(0)).dims;
  const Shape& b = ctx.T(node.Input(1)).dims;
  if (a.size() != 2 || b.size() != 2) {
    return InvalidArgument("Gemm needs 2-D A and B, got " + ShapeToString(a) + " and " +
                           ShapeToString(b));
  }
  const bool ta = node.GetInt("transA", 0) != 0, tb = node.GetInt("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1], n = tb ? b[0] : b[1];
  KernelCall call = GemmCall(ctx, 1, m, n, k, ta, tb);
  call.bytes_read += ctx.Bytes(node.Input(2));  // bias via the GEMM epilogue
  calls->push_back(std::move(call));
  if (ctx.options().training) {
    AddGemmBackward(ctx, 1, m, n, k, ctx.NeedsGradient(node.Input(0)),
                    ctx.NeedsGradient(node.Input(1)), calls);
    if (!node.Input(2).empty() && ctx.IsParameter(node.Input(2))) {
      calls->push_back(BiasGradientCall(ctx, node.outputs.at(0), n));
    }
  }
  return Status::Ok();
}

// MatMul with numpy broadcasting. A weight operand (2-D initializer B) folds
// the batch dims of A into M, as torch.nn.Linear does; otherwise the
// broadcast batch dims become the strided batch.
Status LowerMatMul(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  Shape a = ctx.T(node.Input(0)).dims, b = ctx.T(node.Input(1)).dims;
  if (a.empty() || b.empty()) return InvalidArgument("MatMul of a scalar");
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k) {
    return InvalidArgument("MatMul inner dims differ: " + ShapeToString(a) + " x " +
                           ShapeToString(b));
  }
  const Shape& out = ctx.T(node.outputs.at(0)).dims;
  const int64_t batch = std::max<int64_t>(NumElements(out) / std::max<int64_t>(m * n, 1), 1);
  const bool b_is_weight = b.size() == 2;
  KernelCall call = b_is_weight ? GemmCall(ctx, 1, batch * m, n, k, false, true)
                                : GemmCall(ctx, batch, m, n, k, false, false);
  if (b_is_weight) call.bytes_read = ctx.Bytes(node.Input(0)) + ctx.Bytes(node.Input(1));
  calls->push_back(std::move(call));
  if (ctx.options().training) {
    const bool need_da = ctx.NeedsGradient(node.Input(0));
    const bool need_db = ctx.NeedsGradient(node.Input(1));
    if (b_is_weight) {
      AddGemmBackward(ctx, 1, batch * m, n, k, need_da, need_db, calls);
    } else {
      AddGemmBackward(ctx, batch, m, n, k, need_da, need_db, calls);
    }
    const Node* bias_add = ctx.SoleConsumer(node.outputs[0]);
    if (bias_add != nullptr && IsLinearBiasAdd(ctx, *bias_add)) {
      // An op the host dispatches apart, as it did the Add's backward.
      KernelCall db = BiasGradientCall(ctx, bias_add->outputs.at(0), n);
      db.own_op = true;
      calls->push_back(db);
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterMatMulOps(OpRegistry& registry) {
  registry.Register("Gemm", LowerGemm);
  registry.Register("MatMul", LowerMatMul);
}

}  // namespace dlsim
