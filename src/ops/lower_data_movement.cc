// Transpose, Concat, Slice, Gather, Pad, Expand, Split, Cast, ... -> copy kernels.
#include <algorithm>
#include <cctype>

#include "op_registry.h"

namespace dlsim {
namespace {

std::string LowerName(const std::string& s) {
  std::string out = s;
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// Elements of the trailing run a permutation leaves in place (1 when the
// last dim moves): long runs copy at near-memory speed, short ones do not.
int64_t TransposeInner(const LowerContext& ctx, const Node& node) {
  const Shape& x = ctx.T(node.Input(0)).dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> perm = node.GetInts("perm", {});
  if (perm.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  int64_t inner = 1;
  for (int64_t i = rank - 1; i >= 0 && i < static_cast<int64_t>(perm.size()) && perm[i] == i; --i) {
    inner *= x[i];
  }
  return inner;
}

// In inference, a permutation read only by selects (qkv.permute(...)[0],
// [1], [2]): views of views. (In training the selects' backward writes the
// gradient into a zeroed tensor, so both stay copies there.)
bool ReadOnlyBySelects(const LowerContext& ctx, const std::string& name) {
  const std::vector<const Node*>& readers = ctx.Readers(name);
  if (ctx.options().training || readers.empty() ||
      static_cast<int>(readers.size()) != ctx.ConsumerCount(name)) {
    return false;
  }
  return std::all_of(readers.begin(), readers.end(),
                     [&ctx](const Node* r) { return IsSelectGather(ctx, *r); });
}

// A copy reads what it gathers (at most the inputs, at most the outputs'
// size for slicing/gathering ops) and writes every output.
Status LowerCopy(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  // A permutation is a view in PyTorch; it is copied only for a reader that
  // needs contiguous memory, and pointwise kernels read any strides.
  if (node.op_type == "Transpose" && node.outputs.size() == 1) {
    const Node* reader = ctx.SoleConsumer(node.outputs[0]);
    if (reader != nullptr && IsPointwiseOp(reader->op_type)) return Status::Ok();
    // A change of memory format PyTorch makes without copying.
    if (ctx.MemoryFormatView(node.outputs[0])) return Status::Ok();
    if (ReadOnlyBySelects(ctx, node.outputs[0])) return Status::Ok();
  }
  // x[i] is a view; in training its backward is a copy into zeros.
  if (IsSelectGather(ctx, node) && !ctx.options().training) return Status::Ok();
  double written = 0;
  int64_t elems = 0;
  for (const std::string& out : node.outputs) {
    written += ctx.Bytes(out);
    elems += ctx.Elems(out);
  }
  double read = 0;
  for (const std::string& in : node.inputs) read += ctx.Bytes(in);
  const std::string& op = node.op_type;
  const bool gathers = op == "Slice" || op == "Gather" || op == "GatherElements" ||
                       op == "GatherND" || op == "Expand" || op == "Tile" || op == "Resize" ||
                       op == "Upsample";
  if (gathers) read = std::min(read, written + ctx.Bytes(node.Input(1)));
  KernelCall call = ctx.NewCall(KernelKind::kCopy, "copy_kernel", MathMode::kFp32);
  call.AddParam("op", LowerName(op));
  call.AddParam("elems", elems);
  if (op == "Transpose") call.AddParam("inner", TransposeInner(ctx, node));
  call.bytes_read = read;
  call.bytes_written = written;
  calls->push_back(call);
  if (ctx.options().training && IsFloatDType(ctx.T(node.outputs.at(0)).dtype)) {
    KernelCall bwd = call;
    bwd.phase = Phase::kBackward;
    bwd.params[0].second = LowerName(op) + "_bwd";
    bwd.bytes_read = written;
    bwd.bytes_written = read;
    calls->push_back(bwd);
  }
  return Status::Ok();
}

Status LowerCast(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  // A cast between float types is a no-op once every float runs at one dtype.
  const Tensor& in = ctx.T(node.Input(0));
  const Tensor& out = ctx.T(node.outputs.at(0));
  if (ctx.RunDType(in) == ctx.RunDType(out)) return Status::Ok();
  return LowerCopy(ctx, node, calls);
}

}  // namespace

bool IsSelectGather(const LowerContext& ctx, const Node& node) {
  return node.op_type == "Gather" && node.inputs.size() == 2 && node.outputs.size() == 1 &&
         ctx.T(node.Input(1)).dims.empty() && IsFloatDType(ctx.T(node.outputs[0]).dtype);
}

void RegisterDataMovementOps(OpRegistry& registry) {
  for (const char* op : {"Transpose", "Concat", "Slice", "Gather", "GatherElements",
                         "GatherND", "Pad", "Expand", "Split", "Tile", "Resize",
                         "Upsample", "ScatterND", "ScatterElements", "ConstantOfShape",
                         "Range", "Trilu", "DepthToSpace", "SpaceToDepth", "OneHot",
                         "NonZero", "EyeLike"}) {
    registry.Register(op, LowerCopy);
  }
  registry.Register("Cast", LowerCast);
}

}  // namespace dlsim
