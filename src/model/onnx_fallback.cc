// ONNX's own shape inference, run once on a copy of the model for the ops
// dlsim has no rule for.
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>

#include "import_steps.h"
#include "onnx_proto_convert.h"

namespace dlsim {
namespace {

void FixInputDims(onnx::GraphProto* g, const Graph& graph) {
  for (auto& input : *g->mutable_input()) {
    const Tensor* t = graph.FindTensor(input.name());
    if (t == nullptr || !t->is_graph_input) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : t->dims) shape->add_dim()->set_dim_value(d);
  }
}

void Collect(const onnx::ValueInfoProto& info, FallbackShapes* out) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
  const auto& tt = info.type().tensor_type();
  Tensor t;
  t.name = info.name();
  t.dtype = DTypeFromOnnx(tt.elem_type());
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return;
    t.dims.push_back(d.dim_value());
  }
  (*out)[t.name] = std::move(t);
}

}  // namespace

Result<FallbackShapes> RunOnnxShapeInference(const onnx::ModelProto& model, const Graph& graph,
                                             const std::string& file) {
  onnx::ModelProto copy = model;
  FixInputDims(copy.mutable_graph(), graph);
  copy.mutable_graph()->clear_value_info();
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0,
                                        /*data_prop=*/true);
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return Internal(file + ": ONNX shape inference failed: " + e.what());
  }
  FallbackShapes shapes;
  for (const auto& info : copy.graph().value_info()) Collect(info, &shapes);
  for (const auto& info : copy.graph().output()) Collect(info, &shapes);
  return shapes;
}

}  // namespace dlsim
