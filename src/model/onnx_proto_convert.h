// Conversions from ONNX protobuf messages to dlsim's plain structs. Internal
// to the model module: only files under src/model/ include protobuf types.
#ifndef DLSIM_SRC_MODEL_ONNX_PROTO_CONVERT_H_
#define DLSIM_SRC_MODEL_ONNX_PROTO_CONVERT_H_

#include <onnx/onnx_pb.h>

#include <string>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Initializers and Constant tensors up to this many elements, stored inline,
// get their contents read (shape arithmetic needs them; weights are larger).
inline constexpr int64_t kMaxInlineValueElements = 4096;

// Initializers and graph inputs of higher rank are refused (no real model
// comes near; a hostile file could declare millions of dims).
inline constexpr int kMaxRank = 64;

// Maps an onnx::TensorProto_DataType code. Unsigned types map to the signed
// type of the same width; complex and unknown codes map to kUndefined.
DType DTypeFromOnnx(int32_t onnx_type);

// Converts a tensor's dtype and dims, and its contents when it is stored
// inline with at most kMaxInlineValueElements elements. Never reads external
// data. Errors (negative dims, inline data of the wrong size) name the tensor.
Result<Tensor> ConvertTensorProto(const onnx::TensorProto& proto);

// Converts one attribute. Graph attributes keep only their kind; other
// kinds (sparse tensors, type protos) are kUnsupported errors naming it.
Result<Attribute> ConvertAttribute(const onnx::AttributeProto& proto);

}  // namespace dlsim

#endif  // DLSIM_SRC_MODEL_ONNX_PROTO_CONVERT_H_
