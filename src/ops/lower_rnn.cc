// LSTM/GRU/RNN -> cuDNN RNN. One ONNX node is one layer (possibly
// bidirectional); a stack of layers that PyTorch runs as one multi-layer
// nn.LSTM/nn.GRU call is one call here too (framework_fusion.cc) in
// inference, and one call per layer and direction in training.
#include "framework_fusion.h"
#include "op_registry.h"

namespace dlsim {
namespace {

struct Cell {
  const char* name;
  int gates;
};

Cell CellOf(const std::string& op_type) {
  if (op_type == "LSTM") return {"lstm", 4};
  if (op_type == "GRU") return {"gru", 3};
  return {"rnn_tanh", 1};
}

int64_t Directions(const Node& node) {
  return node.GetString("direction", "forward") == "bidirectional" ? 2 : 1;
}

}  // namespace

Status LowerRecurrentLayers(const LowerContext& ctx, const std::vector<const Node*>& layers,
                            std::vector<KernelCall>* calls) {
  const Node& first = *layers.front();
  const Shape& x = ctx.T(first.Input(0)).dims;
  if (x.size() != 3) return InvalidArgument("recurrent input must be 3-D, got " + ShapeToString(x));
  const bool batch_first = first.GetInt("layout", 0) == 1;
  const int64_t seq = batch_first ? x[1] : x[0], batch = batch_first ? x[0] : x[1];
  const int64_t hidden = first.GetInt("hidden_size", 0);
  if (hidden <= 0) return InvalidArgument("hidden_size must be positive");
  const Cell cell = CellOf(first.op_type);
  const int64_t dirs = Directions(first);
  double bytes_read = ctx.Bytes(first.Input(0)), bytes_written = 0;
  for (const Node* layer : layers) {
    for (size_t i = 1; i < layer->inputs.size() && i < 4; ++i) bytes_read += ctx.Bytes(layer->Input(i));
    for (size_t i = layer == layers.back() ? 0 : 1; i < layer->outputs.size(); ++i) {
      bytes_written += ctx.Bytes(layer->outputs[i]);
    }
  }
  // A cuDNN call: TF32 follows the cuDNN flag (torch.backends.cudnn.allow_tf32), as for convolutions.
  auto call = [&](int64_t input, int64_t n_layers, int64_t n_dirs, double share) {
    KernelCall fwd = ctx.NewCall(KernelKind::kRnnFwd, "cudnnRNNForward", ConvMath(ctx.options()));
    fwd.AddParam("cell", cell.name);
    fwd.AddParam("seq", seq);
    fwd.AddParam("batch", batch);
    fwd.AddParam("input", input);
    fwd.AddParam("hidden", hidden);
    fwd.AddParam("layers", n_layers);
    fwd.AddParam("dirs", n_dirs);
    fwd.bytes_read = bytes_read * share;
    fwd.bytes_written = bytes_written * share;
    return fwd;
  };
  if (!ctx.options().training) {
    calls->push_back(call(x[2], static_cast<int64_t>(layers.size()), dirs, 1.0));
    return Status::Ok();
  }
  // A training step runs op by op, and then cuDNN runs a stack's layers and
  // a layer's two directions one after another: their kernels overlap (a
  // wavefront) only when they are queued ahead of the GPU, as in the CUDA
  // graph the database times a call in. So each layer and direction is a
  // call of its own here, forward and backward. Measured on an H200
  // (bench/profile/rnn_eager_probe.py): a stack's eager kernel sum is
  // 0.87-1.16x its layers replayed one by one, and 1.24-2.19x the stack
  // replayed whole.
  const int64_t n = static_cast<int64_t>(layers.size()) * dirs;
  std::vector<KernelCall> backward;  // the last layer's first, as autograd runs them
  for (size_t l = 0; l < layers.size(); ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      KernelCall fwd = call(l == 0 ? x[2] : hidden * dirs, 1, 1, 1.0 / static_cast<double>(n));
      calls->push_back(fwd);
      KernelCall bd = fwd;
      bd.kind = KernelKind::kRnnBwdData;
      bd.library_call = "cudnnRNNBackwardData_v8";
      bd.phase = Phase::kBackward;
      KernelCall bw = fwd;
      bw.kind = KernelKind::kRnnBwdWeights;
      bw.library_call = "cudnnRNNBackwardWeights_v8";
      bw.phase = Phase::kBackward;
      backward.insert(backward.begin(), {bd, bw});
    }
  }
  calls->insert(calls->end(), backward.begin(), backward.end());
  return Status::Ok();
}

void RegisterRnnOps(OpRegistry& registry) {
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    registry.Register(op, [](const LowerContext& c, const Node& n, std::vector<KernelCall>* k) {
      return LowerRecurrentLayers(c, {&n}, k);
    });
  }
}

}  // namespace dlsim
