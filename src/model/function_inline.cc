// Model-local functions (ModelProto.functions): each call is replaced by the
// function's body before the graph is converted, as a runtime would run it.
// PyTorch's dynamo exporter wrote one function per module or aten op before
// it learned to inline them itself; libonnx 1.12 has no inliner of its own.
#include <map>
#include <utility>
#include <vector>

#include "import_steps.h"

namespace dlsim {
namespace {

// Inlined nodes at most: functions that each call the next twice would
// otherwise grow the graph exponentially with their nesting depth.
constexpr int kMaxInlinedNodes = 1'000'000;

using FunctionKey = std::pair<std::string, std::string>;  // domain, name
using FunctionTable = std::map<FunctionKey, const onnx::FunctionProto*>;

class Inliner {
 public:
  Inliner(const FunctionTable& functions, const std::string& file)
      : functions_(functions), file_(file) {}

  // Appends `node` to `out`, expanded if it calls a local function.
  Status Expand(const onnx::NodeProto& node,
                google::protobuf::RepeatedPtrField<onnx::NodeProto>* out) {
    const FunctionKey key{node.domain(), node.op_type()};
    auto it = functions_.find(key);
    if (it == functions_.end()) {
      if (out->size() >= kMaxInlinedNodes) {
        return InvalidArgument(file_ + ": inlining the model's functions makes more than " +
                               std::to_string(kMaxInlinedNodes) + " nodes");
      }
      *out->Add() = node;
      return Status::Ok();
    }
    for (const FunctionKey& open : open_) {
      if (open == key) {
        return InvalidArgument(file_ + ": node '" + node.name() + "': function '" +
                               node.op_type() + "' calls itself");
      }
    }
    const onnx::FunctionProto& fn = *it->second;
    if (node.output_size() > fn.output_size()) {
      return InvalidArgument(file_ + ": node '" + node.name() + "' has " +
                             std::to_string(node.output_size()) + " outputs; function '" +
                             fn.name() + "' defines " + std::to_string(fn.output_size()));
    }
    const std::map<std::string, std::string> names = ActualNames(node, fn);
    const std::string prefix = UniquePrefix(node);
    open_.push_back(key);
    for (int i = 0; i < fn.node_size(); ++i) {
      onnx::NodeProto body = Instantiate(fn.node(i), node, names, prefix);
      if (body.name().empty()) body.set_name(fn.node(i).op_type() + "_" + std::to_string(i));
      body.set_name(CallName(node) + "/" + body.name());
      DLSIM_RETURN_IF_ERROR(Expand(body, out));
    }
    open_.pop_back();
    return Status::Ok();
  }

 private:
  // Formal input and output names bound to the call's actual ones ("" for an
  // input or output the call leaves out).
  static std::map<std::string, std::string> ActualNames(const onnx::NodeProto& call,
                                                        const onnx::FunctionProto& fn) {
    std::map<std::string, std::string> names;
    for (int i = 0; i < fn.input_size(); ++i) {
      names[fn.input(i)] = i < call.input_size() ? call.input(i) : "";
    }
    for (int i = 0; i < fn.output_size(); ++i) {
      names[fn.output(i)] = i < call.output_size() ? call.output(i) : "";
    }
    return names;
  }

  static std::string CallName(const onnx::NodeProto& call) {
    return call.name().empty() ? call.op_type() : call.name();
  }

  // Values inside the body get this prefix: unique per call.
  std::string UniquePrefix(const onnx::NodeProto& call) {
    return CallName(call) + "#" + std::to_string(calls_++) + "/";
  }

  // A body node with its values renamed and its attribute references
  // (ref_attr_name) resolved from the call; a reference the call does not
  // set is dropped, so the op's default applies.
  static onnx::NodeProto Instantiate(const onnx::NodeProto& proto, const onnx::NodeProto& call,
                                     const std::map<std::string, std::string>& names,
                                     const std::string& prefix) {
    onnx::NodeProto body = proto;
    auto rename = [&](std::string* value) {
      if (value->empty()) return;
      auto it = names.find(*value);
      *value = it != names.end() ? it->second : prefix + *value;
    };
    for (std::string& in : *body.mutable_input()) rename(&in);
    for (std::string& out : *body.mutable_output()) rename(&out);
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
    for (const onnx::AttributeProto& attr : proto.attribute()) {
      if (attr.ref_attr_name().empty()) {
        *attrs.Add() = attr;
        continue;
      }
      for (const onnx::AttributeProto& given : call.attribute()) {
        if (given.name() != attr.ref_attr_name()) continue;
        onnx::AttributeProto* bound = attrs.Add();
        *bound = given;
        bound->set_name(attr.name());
      }
    }
    *body.mutable_attribute() = std::move(attrs);
    return body;
  }

  const FunctionTable& functions_;
  const std::string& file_;
  int calls_ = 0;
  std::vector<FunctionKey> open_;  // functions being expanded, outermost first
};

}  // namespace

Status InlineLocalFunctions(onnx::ModelProto* model, const std::string& file) {
  if (model->functions_size() == 0 || !model->has_graph()) return Status::Ok();
  FunctionTable functions;
  for (const onnx::FunctionProto& fn : model->functions()) {
    functions[{fn.domain(), fn.name()}] = &fn;
  }
  Inliner inliner(functions, file);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const onnx::NodeProto& node : model->graph().node()) {
    DLSIM_RETURN_IF_ERROR(inliner.Expand(node, &nodes));
  }
  *model->mutable_graph()->mutable_node() = std::move(nodes);
  return Status::Ok();
}

}  // namespace dlsim
