// Einsum output shapes: explicit ("bij,bjk->bik") and implicit equations,
// with "..." broadcasting (parsed by einsum_equation.h).
#include "einsum_equation.h"
#include "shape_rules.h"

namespace dlsim {

Status EinsumRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(ctx.num_inputs()));
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.Dims(i));
  Result<EinsumEquation> eq = ParseEinsumEquation(ctx.node().GetString("equation", ""), shapes);
  if (!eq.ok()) return ctx.Error(eq.status().message());
  ctx.SetOut(0, ctx.In(0).dtype, EinsumOutputShape(*eq));
  return Status::Ok();
}

}  // namespace dlsim
