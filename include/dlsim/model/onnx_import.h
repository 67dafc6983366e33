// ONNX import: file -> Graph with every tensor statically shaped.
// The only module that includes protobuf/onnx headers.
#ifndef DLSIM_MODEL_ONNX_IMPORT_H_
#define DLSIM_MODEL_ONNX_IMPORT_H_

#include <map>
#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct ImportOptions {
  // Batch size for the first dim of every graph input (symbolic or fixed).
  // 0 keeps the model's own value (a symbolic batch then becomes 1).
  int64_t batch = 0;
  // Explicit input shapes by input name; they win over `batch`.
  std::map<std::string, Shape> input_shapes;
};

// Parses "NAME:D1xD2x..." as given to --input.
Result<std::pair<std::string, Shape>> ParseInputSpec(const std::string& spec);

// Loads the model at `path`. Never reads weights (initializer dims only) and
// never opens an external-data location outside the model's folder. Errors
// name the file and the node or tensor concerned.
Result<Graph> LoadOnnxModel(const std::string& path, const ImportOptions& options);

// Same, from serialized bytes (tests, fuzzing). `path_for_messages` is used in
// errors only.
Result<Graph> LoadOnnxModelFromBytes(const std::string& bytes,
                                     const std::string& path_for_messages,
                                     const ImportOptions& options);

}  // namespace dlsim

#endif  // DLSIM_MODEL_ONNX_IMPORT_H_
