// Steps of the ONNX import that work on protobuf messages, one file each
// (graph_inputs.cc, onnx_fallback.cc, function_inline.cc). Internal to the model module.
#ifndef DLSIM_SRC_MODEL_IMPORT_STEPS_H_
#define DLSIM_SRC_MODEL_IMPORT_STEPS_H_

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

#include "dlsim/model/graph.h"
#include "dlsim/model/onnx_import.h"
#include "dlsim/model/shape_inference.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Converts a graph input (not an initializer) to a tensor with static dims:
// options.input_shapes[name] if given, else the declared dims with dim 0 set
// to options.batch (or 1 when symbolic and batch is 0). Fails, naming `file`,
// the input and the dim, on a dim still symbolic or a non-tensor type.
Result<Tensor> ConvertGraphInput(const onnx::ValueInfoProto& info, const ImportOptions& options,
                                 const std::string& file);

// Fails when options.named_dims names a dim no graph input of `g` carries.
Status CheckDimNames(const onnx::GraphProto& g, const ImportOptions& options,
                     const std::string& file);

// Fails when options.input_shapes names something not in `input_names`.
Status CheckInputShapeNames(const std::set<std::string>& input_names, const ImportOptions& options,
                            const std::string& file);

// Runs ONNX's own shape inference (with data propagation) on a copy of
// `model` whose graph inputs take their dims from `graph`, and returns every
// value it shaped fully statically.
Result<FallbackShapes> RunOnnxShapeInference(const onnx::ModelProto& model, const Graph& graph,
                                             const std::string& file);

// Replaces every call of a model-local function (ModelProto.functions,
// matched by domain and name) with the function's body, recursively: body
// values get a prefix unique to the call, body nodes are named
// "<call>/<body node>", attribute references take the call's values. Fails,
// naming `file` and the node, on a call with more outputs than the function,
// a function that calls itself, or more than a million inlined nodes.
Status InlineLocalFunctions(onnx::ModelProto* model, const std::string& file);

}  // namespace dlsim

#endif  // DLSIM_SRC_MODEL_IMPORT_STEPS_H_
