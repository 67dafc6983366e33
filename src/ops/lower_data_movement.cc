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

// One int of a constant 1-element tensor input, or `fallback` when the input
// is absent; false when it is present but not a known constant.
bool ConstantInt(const LowerContext& ctx, const Node& node, size_t i, int64_t fallback, int64_t* out) {
  if (node.Input(i).empty()) {
    *out = fallback;
    return true;
  }
  const Tensor& t = ctx.T(node.Input(i));
  if (!t.value || t.value->is_float || t.value->ints.size() != 1) return false;
  *out = t.value->ints[0];
  return true;
}

// [start, end) of a Slice of one axis with step 1, normalised against the
// input's shape; false for any other Slice.
bool SliceRange(const LowerContext& ctx, const Node& slice, int64_t* axis, int64_t* begin,
                int64_t* end) {
  const Shape& x = ctx.T(slice.Input(0)).dims;
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t step = 1;
  if (!ConstantInt(ctx, slice, 1, 0, begin) || !ConstantInt(ctx, slice, 2, 0, end) ||
      !ConstantInt(ctx, slice, 3, 0, axis) || !ConstantInt(ctx, slice, 4, 1, &step) || step != 1) {
    return false;
  }
  if (*axis < 0) *axis += rank;
  if (*axis < 0 || *axis >= rank) return false;
  const int64_t dim = x[static_cast<size_t>(*axis)];
  auto clamp = [dim](int64_t v) { return std::clamp(v < 0 ? v + dim : v, int64_t{0}, dim); };
  *begin = clamp(*begin);
  *end = clamp(*end);
  return *begin < *end;
}

// The Slices that read `node`'s input when they are all its readers and cut
// one axis into pieces that cover it once, as the dynamo exporter writes
// torch.chunk and torch.split (the TorchScript exporter writes a Split): in
// graph order, else empty. PyTorch hands the pieces out as views, and its
// backward concatenates their gradients in one kernel.
std::vector<const Node*> ChunkSlices(const LowerContext& ctx, const Node& node) {
  const std::vector<const Node*>& readers = ctx.Readers(node.Input(0));
  if (readers.size() < 2 || static_cast<int>(readers.size()) != ctx.ConsumerCount(node.Input(0))) {
    return {};
  }
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int64_t axis0 = -1;
  for (const Node* r : readers) {
    int64_t axis = 0, begin = 0, end = 0;
    if (r->op_type != "Slice" || r->Input(0) != node.Input(0) || !SliceRange(ctx, *r, &axis, &begin, &end) ||
        (axis0 >= 0 && axis != axis0)) {
      return {};
    }
    axis0 = axis;
    ranges.emplace_back(begin, end);
  }
  std::sort(ranges.begin(), ranges.end());
  int64_t covered = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin != covered) return {};
    covered = end;
  }
  if (covered != ctx.T(node.Input(0)).dims[static_cast<size_t>(axis0)]) return {};
  std::vector<const Node*> slices = readers;
  std::sort(slices.begin(), slices.end());  // nodes live in one vector: graph order
  return slices;
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
  if (ctx.options().training && IsFloatDType(ctx.T(node.outputs.at(0)).dtype) && op == "Slice") {
    const std::vector<const Node*> chunk = ChunkSlices(ctx, node);
    if (!chunk.empty()) {  // one concatenation of the pieces' gradients, on the first piece
      if (chunk.front() == &node) {
        KernelCall bwd = call;
        bwd.phase = Phase::kBackward;
        bwd.params = {};
        bwd.AddParam("op", "split_bwd");
        bwd.AddParam("elems", ctx.Elems(node.Input(0)));
        bwd.bytes_read = bwd.bytes_written = ctx.Bytes(node.Input(0));
        calls->push_back(bwd);
      }
      return Status::Ok();
    }
  }
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
