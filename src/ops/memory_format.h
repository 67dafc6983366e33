// Which 4-D tensors PyTorch holds in channels-last memory when it runs the
// model the ONNX file was exported from. The exporter writes NCHW shapes and
// explicit permutes, but in PyTorch a permute is a view: x.permute(0, 3, 1, 2)
// of a contiguous NHWC tensor is an NCHW tensor with channels-last strides,
// and that memory format then propagates. A convolution reading such a tensor
// runs cuDNN's NHWC kernels; permuting it back with (0, 2, 3, 1) is free.
#ifndef DLSIM_SRC_OPS_MEMORY_FORMAT_H_
#define DLSIM_SRC_OPS_MEMORY_FORMAT_H_

#include <set>
#include <string>

#include "dlsim/model/graph.h"

namespace dlsim {

struct MemoryFormats {
  std::set<std::string> channels_last;  // tensors in channels-last memory
  std::set<std::string> views;          // outputs of Transposes that launch no kernel
};

// Tensors in channels-last memory, by PyTorch's rules (graph order):
// - Transpose perm (0, 3, 1, 2) of a 4-D tensor that is not channels-last;
// - Conv of a channels-last input (cuDNN's output follows its input);
// - a pointwise op, BatchNormalization, pooling or Dropout, when the first
//   input with the output's shape is channels-last (TensorIterator keeps
//   the layout of its first full-size operand; broadcast ones do not count).
// Everything else (graph inputs, initializers, other ops) is contiguous.
// The views: a Transpose (0, 2, 3, 1) of a channels-last tensor (the result
// is contiguous), or the (0, 3, 1, 2) that makes a channels-last tensor when
// every reader takes channels-last input (convolutions, and the ops that keep
// their input's format) and it is not a graph output. One pass each.
MemoryFormats AnalyzeMemoryFormats(const Graph& graph);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_MEMORY_FORMAT_H_
