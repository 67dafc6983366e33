// Small helper to build Graphs by hand in tests (no ONNX needed).
#ifndef DLSIM_TESTS_OPS_GRAPH_BUILDER_H_
#define DLSIM_TESTS_OPS_GRAPH_BUILDER_H_

#include <string>
#include <vector>

#include "dlsim/model/graph.h"

namespace dlsim::testing {

class GraphBuilder {
 public:
  GraphBuilder& Input(const std::string& name, Shape dims, DType dtype = DType::kFloat32) {
    AddTensor(name, std::move(dims), dtype).is_graph_input = true;
    graph_.inputs.push_back(name);
    return *this;
  }
  GraphBuilder& Weight(const std::string& name, Shape dims, DType dtype = DType::kFloat32) {
    AddTensor(name, std::move(dims), dtype).is_initializer = true;
    return *this;
  }
  Node& Op(const std::string& op, const std::string& name, std::vector<std::string> inputs,
           const std::string& output, Shape out_dims, DType dtype = DType::kFloat32) {
    AddTensor(output, std::move(out_dims), dtype);
    Node node;
    node.name = name;
    node.op_type = op;
    node.inputs = std::move(inputs);
    node.outputs = {output};
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back();
  }
  // One more output of `node` (a Split's pieces, say).
  GraphBuilder& ExtraOutput(Node& node, const std::string& output, Shape dims,
                            DType dtype = DType::kFloat32) {
    AddTensor(output, std::move(dims), dtype);
    node.outputs.push_back(output);
    return *this;
  }
  static void SetInts(Node& node, const std::string& key, std::vector<int64_t> v) {
    Attribute a;
    a.kind = Attribute::Kind::kInts;
    a.ints = std::move(v);
    node.attrs[key] = a;
  }
  static void SetInt(Node& node, const std::string& key, int64_t v) {
    Attribute a;
    a.kind = Attribute::Kind::kInt;
    a.i = v;
    node.attrs[key] = a;
  }
  static void SetString(Node& node, const std::string& key, const std::string& v) {
    Attribute a;
    a.kind = Attribute::Kind::kString;
    a.s = v;
    node.attrs[key] = a;
  }
  Graph Build(const std::vector<std::string>& outputs) {
    graph_.outputs = outputs;
    graph_.opset = 17;
    graph_.name = "test";
    return graph_;
  }

 private:
  Tensor& AddTensor(const std::string& name, Shape dims, DType dtype) {
    Tensor& t = graph_.tensors[name];
    t.name = name;
    t.dims = std::move(dims);
    t.dtype = dtype;
    return t;
  }
  Graph graph_;
};

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_OPS_GRAPH_BUILDER_H_
