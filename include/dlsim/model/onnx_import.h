// ONNX import: file -> Graph with every tensor statically shaped.
// The only module that includes protobuf/onnx headers.
#ifndef DLSIM_MODEL_ONNX_IMPORT_H_
#define DLSIM_MODEL_ONNX_IMPORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/model/shape_inference.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct ImportOptions {
  // Batch size for the first dim of every graph input (symbolic or fixed).
  // 0 keeps the model's own value (a symbolic batch then becomes 1).
  int64_t batch = 0;
  // Explicit input shapes by input name; they win over `batch`. A name that
  // is not a graph input is an error.
  std::map<std::string, Shape> input_shapes;
  // Symbolic dims set by name (--dim seq=2048): every input dim whose
  // dim_param is the name takes the value. Dim 0 of an input still takes
  // `batch` when that is set. A name no input dim carries is an error.
  std::map<std::string, int64_t> named_dims;
};

// The attribute the importer sets (to 1) on a Conv into which the exporter
// folded a BatchNormalization (the dynamo exporter's FuseBatchNormIntoConv
// rewrite, named in the node's metadata): a training step still runs the
// batch norm (src/estimate/saved_tensors.cc).
inline constexpr char kFoldedBatchNormAttr[] = "dlsim.folded_batch_norm";

// Parses "NAME=N" as given to --dim (N a positive integer); errors quote it.
Result<std::pair<std::string, int64_t>> ParseDimSpec(const std::string& spec);

// Parses "NAME:D1xD2x..." as given to --input. Dims must be positive
// integers; errors quote the spec.
Result<std::pair<std::string, Shape>> ParseInputSpec(const std::string& spec);

// Loads the model at `path`: parses it (opsets 7 and up; 11-17 are the ones
// exercised), sorts nodes topologically, fixes input shapes from `options`
// and infers every tensor's dtype and static dims (InferShapes, with ONNX's
// own inference as the fallback for ops without a dlsim rule). Never reads
// weights (initializer dims only; inline contents of small initializers are
// kept) and never opens an external-data location; a location that is
// absolute, has a `..` component or resolves outside the model's folder is
// refused. Errors name the file and the node or tensor concerned. `report`,
// when not null, receives the ops shaped by the fallback.
Result<Graph> LoadOnnxModel(const std::string& path, const ImportOptions& options,
                            ShapeInferenceReport* report = nullptr);

// Same, from serialized bytes (tests, fuzzing). `path_for_messages` is used in
// errors and as the model location external-data paths are checked against.
Result<Graph> LoadOnnxModelFromBytes(const std::string& bytes, const std::string& path_for_messages,
                                     const ImportOptions& options,
                                     ShapeInferenceReport* report = nullptr);

}  // namespace dlsim

#endif  // DLSIM_MODEL_ONNX_IMPORT_H_
