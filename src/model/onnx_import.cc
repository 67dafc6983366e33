// LoadOnnxModel: parse, convert to a Graph, order, shape.
#include "dlsim/model/onnx_import.h"

#include <google/protobuf/unknown_field_set.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dlsim/util/input_file.h"
#include "external_data.h"
#include "graph_order.h"
#include "import_steps.h"
#include "onnx_proto_convert.h"

namespace dlsim {
namespace {

Result<int64_t> DefaultOpset(const onnx::ModelProto& model, const std::string& file) {
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") {
      if (op.version() < 7) {
        return Unsupported(file + ": opset " + std::to_string(op.version()) +
                           " is too old (dlsim reads opset 7 and later)");
      }
      return op.version();
    }
  }
  return ParseError(file + ": the model imports no default-domain (ai.onnx) opset");
}

// Uses the graph name unless it is empty or one of PyTorch's generic names.
std::string ModelName(const onnx::GraphProto& g, const std::string& file) {
  const std::string& n = g.name();
  if (!n.empty() && n != "main_graph" && n != "torch_jit" && n != "torch-jit-export") return n;
  return std::filesystem::path(file).stem().string();
}

Status AddInitializers(const onnx::GraphProto& g, const std::string& file, Graph* graph) {
  for (const auto& proto : g.initializer()) {
    auto tensor = ConvertTensorProto(proto);
    if (!tensor.ok()) return tensor.status().WithContext(file + ": initializer");
    if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
      std::string location;
      for (const auto& entry : proto.external_data()) {
        if (entry.key() == "location") location = entry.value();
      }
      DLSIM_RETURN_IF_ERROR(ValidateExternalLocation(file, proto.name(), location));
    }
    tensor->is_initializer = true;
    if (!graph->tensors.emplace(proto.name(), std::move(tensor).value()).second) {
      return InvalidArgument(file + ": initializer '" + proto.name() + "' is defined twice");
    }
  }
  return Status::Ok();
}

Status AddGraphInputs(const onnx::GraphProto& g, const ImportOptions& options,
                      const std::string& file, Graph* graph) {
  DLSIM_RETURN_IF_ERROR(CheckDimNames(g, options, file));
  std::set<std::string> names;
  for (const auto& info : g.input()) {
    const Tensor* existing = graph->FindTensor(info.name());
    if (existing != nullptr && existing->is_initializer) continue;  // IR < 4 style
    if (existing != nullptr) {
      return InvalidArgument(file + ": graph input '" + info.name() + "' is listed twice");
    }
    DLSIM_ASSIGN_OR_RETURN(Tensor t, ConvertGraphInput(info, options, file));
    names.insert(info.name());
    graph->inputs.push_back(info.name());
    graph->tensors.emplace(info.name(), std::move(t));
  }
  return CheckInputShapeNames(names, options, file);
}

// True when the node's metadata (NodeProto field 9, metadata_props, which
// this libonnx may not know and keeps as an unknown field) names the
// exporter's fold of a batch norm into it.
bool FoldedBatchNorm(const onnx::NodeProto& proto) {
  const auto& unknown = proto.unknown_fields();
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& f = unknown.field(i);
    if (f.number() == 9 && f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED &&
        f.length_delimited().find("FuseBatchNormIntoConv") != std::string::npos) {
      return true;
    }
  }
  return false;
}

Status AddNodes(const onnx::GraphProto& g, const std::string& file, Graph* graph) {
  graph->nodes.reserve(g.node_size());
  for (const auto& proto : g.node()) {
    Node node;
    node.name = proto.name();
    node.op_type = proto.op_type();
    node.domain = proto.domain();
    node.inputs.assign(proto.input().begin(), proto.input().end());
    node.outputs.assign(proto.output().begin(), proto.output().end());
    for (const auto& attr : proto.attribute()) {
      auto converted = ConvertAttribute(attr);
      if (!converted.ok()) {
        return converted.status().WithContext(file + ": node '" + proto.name() + "' (" +
                                              proto.op_type() + ")");
      }
      node.attrs[attr.name()] = std::move(converted).value();
    }
    if (node.op_type == "Conv" && FoldedBatchNorm(proto)) {
      Attribute folded;
      folded.i = 1;
      node.attrs[kFoldedBatchNormAttr] = folded;
    }
    graph->nodes.push_back(std::move(node));
  }
  return Status::Ok();
}

Status CheckOutputs(const Graph& graph, const std::string& file) {
  for (const std::string& out : graph.outputs) {
    if (graph.FindTensor(out) == nullptr) {
      return InvalidArgument(file + ": graph output '" + out + "' is produced by no node");
    }
  }
  return Status::Ok();
}

Status Shape(const onnx::ModelProto& model, const std::string& file, Graph* graph,
             ShapeInferenceReport* report) {
  bool need_fallback = false;
  for (const Node& node : graph->nodes) {
    need_fallback = need_fallback || !HasShapeRule(node.domain, node.op_type);
  }
  FallbackShapes fallback;
  if (need_fallback) {
    DLSIM_ASSIGN_OR_RETURN(fallback, RunOnnxShapeInference(model, *graph, file));
  }
  Status s = InferShapes(*graph, fallback, report);
  if (!s.ok()) return s.WithContext(file);
  return CheckOutputs(*graph, file);
}

// Lowering, fusion and the analyses match ops by op_type alone; an op of
// another domain sharing an ONNX name (evil.domain::Relu) must not be priced
// as the ONNX op, so from here on its op_type carries its domain and it is
// an unknown op (a warning, or an error with --strict) named with it.
void QualifyForeignOps(Graph* graph) {
  for (Node& node : graph->nodes) {
    if (!IsDefaultOnnxDomain(node.domain)) node.op_type = node.domain + "::" + node.op_type;
  }
}

Result<Graph> Convert(const onnx::ModelProto& model, const std::string& file,
                      const ImportOptions& options, ShapeInferenceReport* report) {
  if (!model.has_graph()) return ParseError(file + ": not an ONNX model (no graph)");
  const onnx::GraphProto& g = model.graph();
  Graph graph;
  graph.source_path = file;
  graph.name = ModelName(g, file);
  DLSIM_ASSIGN_OR_RETURN(graph.opset, DefaultOpset(model, file));
  DLSIM_RETURN_IF_ERROR(AddInitializers(g, file, &graph));
  DLSIM_RETURN_IF_ERROR(AddGraphInputs(g, options, file, &graph));
  DLSIM_RETURN_IF_ERROR(AddNodes(g, file, &graph));
  for (const auto& out : g.output()) graph.outputs.push_back(out.name());
  AssignUniqueNodeNames(graph);
  DLSIM_RETURN_IF_ERROR(SortNodesTopologically(graph, file));
  DLSIM_RETURN_IF_ERROR(Shape(model, file, &graph, report));
  QualifyForeignOps(&graph);
  return graph;
}

}  // namespace

Result<Graph> LoadOnnxModelFromBytes(const std::string& bytes, const std::string& path_for_messages,
                                     const ImportOptions& options, ShapeInferenceReport* report) {
  const std::string& file = path_for_messages;
  if (bytes.empty()) return ParseError(file + ": the file is empty, not an ONNX model");
  onnx::ModelProto model;
  try {
    if (!model.ParseFromString(bytes)) {
      return ParseError(file +
                        ": not a valid ONNX model (protobuf parsing failed; "
                        "truncated or not ONNX)");
    }
    DLSIM_RETURN_IF_ERROR(InlineLocalFunctions(&model, file));
    return Convert(model, file, options, report);
  } catch (const std::exception& e) {
    return Internal(file + ": " + e.what());
  }
}

Result<Graph> LoadOnnxModel(const std::string& path, const ImportOptions& options,
                            ShapeInferenceReport* report) {
  // Protobuf cannot parse a message over 2 GiB; weights beyond that live in
  // external data, which is never read.
  DLSIM_ASSIGN_OR_RETURN(std::string bytes,
                         ReadInputFile(path, "an ONNX file", int64_t{2} << 30));
  return LoadOnnxModelFromBytes(bytes, path, options, report);
}

}  // namespace dlsim
