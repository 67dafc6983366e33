#include "cudnn_util.h"

namespace dlcal {

Status CudnnStatus(cudnnStatus_t s, const std::string& what) {
  if (s == CUDNN_STATUS_SUCCESS) return Status::Ok();
  std::string msg = what + ": " + cudnnGetErrorString(s) + " (" +
                    std::to_string(static_cast<int>(s)) + ")";
  int category = static_cast<int>(s) / 1000;
  if (category == 2 || category == 3) return Unsupported(msg);  // BAD_PARAM*, NOT_SUPPORTED*
  return Failed(msg);
}

cudnnDataType_t CudnnType(DType t) {
  switch (t) {
    case DType::kF16: return CUDNN_DATA_HALF;
    case DType::kBF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

Status KeyTypeAndFormat(const Key& key, DType* t, cudnnTensorFormat_t* format) {
  if (!DTypeFromName(key.dtype, t)) return Unsupported("dtype " + key.dtype);
  if (key.layout == "nchw") *format = CUDNN_TENSOR_NCHW;
  else if (key.layout == "nhwc") *format = CUDNN_TENSOR_NHWC;
  else return Unsupported("layout '" + key.layout + "' (want nchw or nhwc)");
  return Status::Ok();
}

Status Set4d(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format, DType t, int n, int c,
             int h, int w) {
  return CudnnStatus(cudnnSetTensor4dDescriptor(d, format, CudnnType(t), n, c, h, w),
                     "cudnnSetTensor4dDescriptor(" + std::to_string(n) + "," +
                         std::to_string(c) + "," + std::to_string(h) + "," +
                         std::to_string(w) + ")");
}

}  // namespace dlcal
