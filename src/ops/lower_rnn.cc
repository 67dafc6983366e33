// LSTM/GRU/RNN -> cuDNN RNN (one ONNX node = one layer, possibly bidirectional).
#include "dlsim/ops/op_registry.h"

namespace dlsim {
namespace {

Status LowerRecurrent(const LowerContext& ctx, const Node& node, const char* cell,
                      int gates, std::vector<KernelCall>* calls) {
  const Shape& x = ctx.T(node.Input(0)).dims;
  if (x.size() != 3) return InvalidArgument("recurrent input must be 3-D, got " + ShapeToString(x));
  const bool batch_first = node.GetInt("layout", 0) == 1;
  const int64_t seq = batch_first ? x[1] : x[0], batch = batch_first ? x[0] : x[1];
  const int64_t input = x[2];
  const int64_t hidden = node.GetInt("hidden_size", 0);
  if (hidden <= 0) return InvalidArgument("hidden_size must be positive");
  const int64_t dirs = node.GetString("direction", "forward") == "bidirectional" ? 2 : 1;
  KernelCall fwd = ctx.NewCall(KernelKind::kRnnFwd, "cudnnRNNForward", GemmMath(ctx.options()));
  fwd.AddParam("cell", cell);
  fwd.AddParam("seq", seq);
  fwd.AddParam("batch", batch);
  fwd.AddParam("input", input);
  fwd.AddParam("hidden", hidden);
  fwd.AddParam("layers", 1);
  fwd.AddParam("dirs", dirs);
  // Per step and direction: gate GEMMs over [input, hidden] plus pointwise.
  fwd.flops = static_cast<double>(seq) * dirs * batch *
              (2.0 * gates * hidden * (input + hidden) + 10.0 * hidden);
  fwd.bytes_read = ctx.Bytes(node.Input(0)) + ctx.Bytes(node.Input(1)) +
                   ctx.Bytes(node.Input(2)) + ctx.Bytes(node.Input(3));
  for (const std::string& out : node.outputs) fwd.bytes_written += ctx.Bytes(out);
  calls->push_back(fwd);
  if (ctx.options().training) {
    KernelCall bd = fwd;
    bd.kind = KernelKind::kRnnBwdData;
    bd.library_call = "cudnnRNNBackwardData_v8";
    bd.phase = "bwd";
    KernelCall bw = fwd;
    bw.kind = KernelKind::kRnnBwdWeights;
    bw.library_call = "cudnnRNNBackwardWeights_v8";
    bw.phase = "bwd";
    calls->push_back(bd);
    calls->push_back(bw);
  }
  return Status::Ok();
}

}  // namespace

void RegisterRnnOps(OpRegistry& registry) {
  registry.Register("LSTM", [](const LowerContext& c, const Node& n, std::vector<KernelCall>* k) {
    return LowerRecurrent(c, n, "lstm", 4, k);
  });
  registry.Register("GRU", [](const LowerContext& c, const Node& n, std::vector<KernelCall>* k) {
    return LowerRecurrent(c, n, "gru", 3, k);
  });
  registry.Register("RNN", [](const LowerContext& c, const Node& n, std::vector<KernelCall>* k) {
    return LowerRecurrent(c, n, "rnn_tanh", 1, k);
  });
}

}  // namespace dlsim
