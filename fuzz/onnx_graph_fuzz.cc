// libFuzzer target: structured ONNX graphs. Where onnx_import_fuzz mutates
// bytes (and mostly exercises the protobuf parser), this one spends the
// fuzz input on *what a model says*: a chain of 1-4 nodes of ops dlsim has
// rules for, with fuzzed input dims, attributes and small int64 constants
// (shapes, axes, pads, indices), serialized and imported, then lowered and
// priced (roofline, inference and training). It drives shape inference,
// lowering and costing with hostile sizes: overflow, zero and negative
// dims, out-of-range axes. No seed corpus is needed (any bytes decode).
#include <fuzzer/FuzzedDataProvider.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_entries.h"

namespace {

struct OpSpec {
  const char* op;
  int extra_inputs;                 // after the chained input
  std::vector<const char*> ints;    // list attributes
  std::vector<const char*> scalars; // int attributes
};

const std::vector<OpSpec>& Ops() {
  static const std::vector<OpSpec> ops = {
      {"Conv", 2, {"kernel_shape", "strides", "pads", "dilations"}, {"group"}},
      {"ConvTranspose", 1, {"kernel_shape", "strides", "pads", "dilations", "output_padding"},
       {"group"}},
      {"MaxPool", 0, {"kernel_shape", "strides", "pads", "dilations"}, {"ceil_mode"}},
      {"AveragePool", 0, {"kernel_shape", "strides", "pads"}, {"ceil_mode"}},
      {"GlobalAveragePool", 0, {}, {}},
      {"MatMul", 1, {}, {}},
      {"Gemm", 2, {}, {"transA", "transB"}},
      {"Add", 1, {}, {}},
      {"Mul", 1, {}, {}},
      {"Relu", 0, {}, {}},
      {"Softmax", 0, {}, {"axis"}},
      {"Reshape", 1, {}, {"allowzero"}},
      {"Transpose", 0, {"perm"}, {}},
      {"Concat", 1, {}, {"axis"}},
      {"Slice", 4, {}, {}},
      {"Gather", 1, {}, {"axis"}},
      {"Pad", 1, {}, {}},
      {"Expand", 1, {}, {}},
      {"Tile", 1, {}, {}},
      {"Flatten", 0, {}, {"axis"}},
      {"Squeeze", 1, {}, {}},
      {"Unsqueeze", 1, {}, {}},
      {"ReduceMean", 0, {"axes"}, {"keepdims"}},
      {"ReduceSum", 1, {}, {"keepdims"}},
      {"BatchNormalization", 4, {}, {}},
      {"LayerNormalization", 2, {}, {"axis"}},
      {"Split", 1, {}, {"axis"}},
      {"Shape", 0, {}, {"start", "end"}},
      {"ConstantOfShape", 0, {}, {}},
      {"Range", 2, {}, {}},
      {"Einsum", 1, {}, {}},
      {"LSTM", 2, {}, {"hidden_size"}},
      {"GRU", 2, {}, {"hidden_size"}},
      {"Resize", 3, {}, {}},
      {"Where", 2, {}, {}},
      {"Cast", 0, {}, {"to"}},
  };
  return ops;
}

// Mostly small values, sometimes hostile ones.
int64_t Value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return in.ConsumeIntegral<int64_t>();
    case 1: return -in.ConsumeIntegralInRange<int64_t>(0, 4);
    case 2: return int64_t{1} << in.ConsumeIntegralInRange<int>(20, 62);
    default: return in.ConsumeIntegralInRange<int64_t>(0, 8);
  }
}

std::vector<int64_t> Values(FuzzedDataProvider& in, int max_len) {
  std::vector<int64_t> v(in.ConsumeIntegralInRange<int>(0, max_len));
  for (int64_t& x : v) x = Value(in);
  return v;
}

// A float tensor of fuzzed dims (no data), or a small int64 one with data.
void AddInitializer(FuzzedDataProvider& in, const std::string& name, onnx::GraphProto* g) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  if (in.ConsumeBool()) {
    t->set_data_type(onnx::TensorProto::INT64);
    const std::vector<int64_t> data = Values(in, 6);
    if (in.ConsumeBool()) t->add_dims(static_cast<int64_t>(data.size()));
    for (int64_t x : data) t->add_int64_data(x);
    if (data.empty() && t->dims_size() == 0) t->add_int64_data(0);  // a scalar
  } else {
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : Values(in, 5)) t->add_dims(d);
  }
}

std::string BuildModel(FuzzedDataProvider& in) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(in.ConsumeIntegralInRange<int>(11, 17));
  onnx::GraphProto* g = model.mutable_graph();
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape();
  for (int64_t d : Values(in, 5)) tt->mutable_shape()->add_dim()->set_dim_value(d);
  std::string prev = "x";
  const int nodes = in.ConsumeIntegralInRange<int>(1, 4);
  for (int n = 0; n < nodes; ++n) {
    const OpSpec& spec = Ops()[in.ConsumeIntegralInRange<size_t>(0, Ops().size() - 1)];
    onnx::NodeProto* node = g->add_node();
    const std::string id = std::to_string(n);
    node->set_name("n" + id);
    node->set_op_type(spec.op);
    node->add_input(prev);
    for (int k = 0; k < spec.extra_inputs; ++k) {
      const std::string name = "c" + id + "_" + std::to_string(k);
      if (in.ConsumeIntegralInRange<int>(0, 7) == 0) {
        node->add_input("");  // an omitted optional input
        continue;
      }
      AddInitializer(in, name, g);
      node->add_input(name);
    }
    for (const char* a : spec.ints) {
      if (!in.ConsumeBool()) continue;
      onnx::AttributeProto* attr = node->add_attribute();
      attr->set_name(a);
      attr->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : Values(in, 6)) attr->add_ints(v);
    }
    for (const char* a : spec.scalars) {
      if (!in.ConsumeBool()) continue;
      onnx::AttributeProto* attr = node->add_attribute();
      attr->set_name(a);
      attr->set_type(onnx::AttributeProto::INT);
      attr->set_i(Value(in));
    }
    if (std::string(spec.op) == "Einsum") {
      onnx::AttributeProto* attr = node->add_attribute();
      attr->set_name("equation");
      attr->set_type(onnx::AttributeProto::STRING);
      attr->set_s(in.ConsumeRandomLengthString(12));
    }
    prev = "y" + id;
    node->add_output(prev);
  }
  g->add_output()->set_name(prev);
  return model.SerializeAsString();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string bytes = BuildModel(in);
  // DLSIM_FUZZ_WRITE_MODEL=FILE: write the model this input builds, e.g. a
  // crash's, for fuzz/regressions/onnx_import_fuzz/ (replayed the same way).
  if (const char* path = std::getenv("DLSIM_FUZZ_WRITE_MODEL")) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  if (!dlsim::fuzz::OnnxImport(bytes)) __builtin_trap();
  return 0;
}
