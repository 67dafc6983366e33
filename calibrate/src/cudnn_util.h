// cuDNN helpers shared by the cuDNN families: status conversion, data
// types, and descriptors that destroy themselves.
#ifndef DLSIM_CALIBRATE_CUDNN_UTIL_H_
#define DLSIM_CALIBRATE_CUDNN_UTIL_H_

#include <cudnn.h>

#include <string>

#include "dtype.h"
#include "key.h"
#include "status.h"

namespace dlcal {

// NOT_SUPPORTED* and BAD_PARAM* (the key asks for something the call does
// not do) are kUnsupported; everything else kFailed.
Status CudnnStatus(cudnnStatus_t s, const std::string& what);
#define CAL_CUDNN(expr) CAL_RETURN_IF_ERROR(::dlcal::CudnnStatus((expr), #expr))

cudnnDataType_t CudnnType(DType t);
// Reads dtype and layout of a key; layout must be nchw or nhwc.
Status KeyTypeAndFormat(const Key& key, DType* t, cudnnTensorFormat_t* format);

// RAII wrappers: Create() in the constructor, Destroy() in the destructor.
#define CAL_CUDNN_DESC(Name, Type, Create, Destroy)         \
  class Name {                                              \
   public:                                                  \
    Name() { ok_ = Create(&d_) == CUDNN_STATUS_SUCCESS; }   \
    ~Name() {                                               \
      if (ok_) Destroy(d_);                                 \
    }                                                       \
    Name(const Name&) = delete;                             \
    Name& operator=(const Name&) = delete;                  \
    Type get() const { return d_; }                         \
    operator Type() const { return d_; }                    \
    bool ok() const { return ok_; }                         \
                                                            \
   private:                                                 \
    Type d_{};                                              \
    bool ok_ = false;                                       \
  };

CAL_CUDNN_DESC(TensorDesc, cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
               cudnnDestroyTensorDescriptor)
CAL_CUDNN_DESC(FilterDesc, cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
               cudnnDestroyFilterDescriptor)
CAL_CUDNN_DESC(ConvDesc, cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
               cudnnDestroyConvolutionDescriptor)
CAL_CUDNN_DESC(ActDesc, cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
               cudnnDestroyActivationDescriptor)
CAL_CUDNN_DESC(PoolDesc, cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor,
               cudnnDestroyPoolingDescriptor)
CAL_CUDNN_DESC(LrnDesc, cudnnLRNDescriptor_t, cudnnCreateLRNDescriptor,
               cudnnDestroyLRNDescriptor)
CAL_CUDNN_DESC(DropoutDesc, cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor,
               cudnnDestroyDropoutDescriptor)
CAL_CUDNN_DESC(RnnDesc, cudnnRNNDescriptor_t, cudnnCreateRNNDescriptor,
               cudnnDestroyRNNDescriptor)
CAL_CUDNN_DESC(RnnDataDesc, cudnnRNNDataDescriptor_t, cudnnCreateRNNDataDescriptor,
               cudnnDestroyRNNDataDescriptor)

// Sets a 4-d tensor n,c,h,w in `format`.
Status Set4d(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format, DType t, int n, int c,
             int h, int w);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_CUDNN_UTIL_H_
