// The part of cuDNN's C API (its "legacy" convolution calls, cuDNN 8 and 9) that
// cudnn_conv.cpp uses, declared here rather than taken from cudnn.h: cuDNN is loaded with dlopen
// where it exists (runtime/cudnn_loader.cpp, which checks these declarations against cudnn.h when
// that header is at hand), and the emulated build of tests/cuda fills the same table with host
// stand-ins, so the wrapper's descriptors, operand order and workspace are tested without a GPU.
// Handles and descriptors are opaque pointers; enums are ints with cuDNN's values.
#pragma once
#include <cstddef>

#include "kernels/cuda/portable.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

namespace cudnn_enum {
inline constexpr int kSuccess = 0;                          // cudnnStatus_t CUDNN_STATUS_SUCCESS
inline constexpr int kFloat = 0, kDouble = 1, kBfloat16 = 9;  // cudnnDataType_t
inline constexpr int kNhwc = 1;                             // cudnnTensorFormat_t CUDNN_TENSOR_NHWC
inline constexpr int kCrossCorrelation = 1;                 // cudnnConvolutionMode_t
inline constexpr int kDefaultMath = 0, kTensorOpMath = 1, kFmaMath = 3;  // cudnnMathType_t
}  // namespace cudnn_enum

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t (one layout for the three).
struct CudnnAlgoPerf {
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

using CudnnHandle = void*;
using CudnnDesc = void*;  // a tensor, filter or convolution descriptor

struct CudnnApi {
  const char* (*get_error_string)(int status);
  int (*create_tensor_desc)(CudnnDesc*);
  int (*set_tensor_nd_desc_ex)(CudnnDesc, int format, int data_type, int nb_dims, const int* dims);
  int (*destroy_tensor_desc)(CudnnDesc);
  int (*create_filter_desc)(CudnnDesc*);
  int (*set_filter_nd_desc)(CudnnDesc, int data_type, int format, int nb_dims, const int* dims);
  int (*destroy_filter_desc)(CudnnDesc);
  int (*create_conv_desc)(CudnnDesc*);
  int (*set_conv_nd_desc)(CudnnDesc, int array_length, const int* pad, const int* stride, const int* dilation,
                          int mode, int compute_type);
  int (*set_conv_group_count)(CudnnDesc, int groups);
  int (*set_conv_math_type)(CudnnDesc, int math_type);
  int (*destroy_conv_desc)(CudnnDesc);
  int (*forward_algorithms)(CudnnHandle, CudnnDesc x, CudnnDesc w, CudnnDesc conv, CudnnDesc y, int requested,
                            int* returned, CudnnAlgoPerf* results);
  int (*forward_workspace)(CudnnHandle, CudnnDesc x, CudnnDesc w, CudnnDesc conv, CudnnDesc y, int algo,
                           size_t* bytes);
  int (*forward)(CudnnHandle, const void* alpha, CudnnDesc x_desc, const void* x, CudnnDesc w_desc, const void* w,
                 CudnnDesc conv, int algo, void* workspace, size_t workspace_bytes, const void* beta,
                 CudnnDesc y_desc, void* y);
  int (*backward_data_algorithms)(CudnnHandle, CudnnDesc w, CudnnDesc dy, CudnnDesc conv, CudnnDesc dx,
                                  int requested, int* returned, CudnnAlgoPerf* results);
  int (*backward_data_workspace)(CudnnHandle, CudnnDesc w, CudnnDesc dy, CudnnDesc conv, CudnnDesc dx, int algo,
                                 size_t* bytes);
  int (*backward_data)(CudnnHandle, const void* alpha, CudnnDesc w_desc, const void* w, CudnnDesc dy_desc,
                       const void* dy, CudnnDesc conv, int algo, void* workspace, size_t workspace_bytes,
                       const void* beta, CudnnDesc dx_desc, void* dx);
  int (*backward_filter_algorithms)(CudnnHandle, CudnnDesc x, CudnnDesc dy, CudnnDesc conv, CudnnDesc dw,
                                    int requested, int* returned, CudnnAlgoPerf* results);
  int (*backward_filter_workspace)(CudnnHandle, CudnnDesc x, CudnnDesc dy, CudnnDesc conv, CudnnDesc dw, int algo,
                                   size_t* bytes);
  int (*backward_filter)(CudnnHandle, const void* alpha, CudnnDesc x_desc, const void* x, CudnnDesc dy_desc,
                         const void* dy, CudnnDesc conv, int algo, void* workspace, size_t workspace_bytes,
                         const void* beta, CudnnDesc dw_desc, void* dw);
  CudnnHandle handle;  // on the backend's stream
  int float32_math;    // cudnn_enum::kFmaMath, or kTensorOpMath with STRATA_CUDA_TF32=1
};

// The loaded cuDNN (GPU build: runtime/cudnn_loader.cpp; STRATA_CUDA_CUDNN=0 turns it off), or the
// host stand-in a test installed (emulated build: tests/cuda/cudnn_standin.cpp); nullptr: the own
// convolution kernels run.
const CudnnApi* cudnn();

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
