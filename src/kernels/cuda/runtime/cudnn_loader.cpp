// cuDNN for the GPU build: libcudnn.so.9 (or .8) with dlopen, its entry points into the table of
// cudnn_api.hpp, a handle on the backend's stream. Where it does not load (or with
// STRATA_CUDA_CUDNN=0) cudnn() is nullptr and the own convolution kernels run.
#include <string>

#include "kernels/cuda/cudnn_api.hpp"
#include "kernels/cuda/runtime/runtime.hpp"
#include "kernels/cuda/runtime/vendor_library.hpp"

#if __has_include(<cudnn.h>)
#include <cudnn.h>
// The declarations of cudnn_api.hpp against the real header, where it is at hand.
static_assert(CUDNN_STATUS_SUCCESS == strata::kernels::cuda::cudnn_enum::kSuccess);
static_assert(CUDNN_DATA_FLOAT == strata::kernels::cuda::cudnn_enum::kFloat);
static_assert(CUDNN_DATA_DOUBLE == strata::kernels::cuda::cudnn_enum::kDouble);
static_assert(CUDNN_DATA_BFLOAT16 == strata::kernels::cuda::cudnn_enum::kBfloat16);
static_assert(CUDNN_TENSOR_NHWC == strata::kernels::cuda::cudnn_enum::kNhwc);
static_assert(CUDNN_CROSS_CORRELATION == strata::kernels::cuda::cudnn_enum::kCrossCorrelation);
static_assert(CUDNN_FMA_MATH == strata::kernels::cuda::cudnn_enum::kFmaMath);
static_assert(CUDNN_TENSOR_OP_MATH == strata::kernels::cuda::cudnn_enum::kTensorOpMath);
static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) == sizeof(strata::kernels::cuda::CudnnAlgoPerf));
static_assert(offsetof(cudnnConvolutionFwdAlgoPerf_t, memory) == offsetof(strata::kernels::cuda::CudnnAlgoPerf, memory));
static_assert(offsetof(cudnnConvolutionBwdFilterAlgoPerf_t, memory) ==
              offsetof(strata::kernels::cuda::CudnnAlgoPerf, memory));
#endif

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

// bind_symbol of cuDNN (named so in the log).
template <class F>
bool bind(void* lib, F& slot, const char* symbol) {
  return bind_symbol(lib, "cuDNN", slot, symbol);
}

const CudnnApi* load() {
  void* lib = load_vendor_library("cuDNN", "STRATA_CUDA_CUDNN", {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"});
  if (!lib) return nullptr;
  static CudnnApi api;
  int (*create)(CudnnHandle*) = nullptr;
  int (*set_stream)(CudnnHandle, cudaStream_t) = nullptr;
  size_t (*version)() = nullptr;
  const bool bound =
      bind(lib, create, "cudnnCreate") && bind(lib, set_stream, "cudnnSetStream") &&
      bind(lib, version, "cudnnGetVersion") && bind(lib, api.get_error_string, "cudnnGetErrorString") &&
      bind(lib, api.create_tensor_desc, "cudnnCreateTensorDescriptor") &&
      bind(lib, api.set_tensor_nd_desc_ex, "cudnnSetTensorNdDescriptorEx") &&
      bind(lib, api.destroy_tensor_desc, "cudnnDestroyTensorDescriptor") &&
      bind(lib, api.create_filter_desc, "cudnnCreateFilterDescriptor") &&
      bind(lib, api.set_filter_nd_desc, "cudnnSetFilterNdDescriptor") &&
      bind(lib, api.destroy_filter_desc, "cudnnDestroyFilterDescriptor") &&
      bind(lib, api.create_conv_desc, "cudnnCreateConvolutionDescriptor") &&
      bind(lib, api.set_conv_nd_desc, "cudnnSetConvolutionNdDescriptor") &&
      bind(lib, api.set_conv_group_count, "cudnnSetConvolutionGroupCount") &&
      bind(lib, api.set_conv_math_type, "cudnnSetConvolutionMathType") &&
      bind(lib, api.destroy_conv_desc, "cudnnDestroyConvolutionDescriptor") &&
      bind(lib, api.forward_algorithms, "cudnnGetConvolutionForwardAlgorithm_v7") &&
      bind(lib, api.forward_workspace, "cudnnGetConvolutionForwardWorkspaceSize") &&
      bind(lib, api.forward, "cudnnConvolutionForward") &&
      bind(lib, api.backward_data_algorithms, "cudnnGetConvolutionBackwardDataAlgorithm_v7") &&
      bind(lib, api.backward_data_workspace, "cudnnGetConvolutionBackwardDataWorkspaceSize") &&
      bind(lib, api.backward_data, "cudnnConvolutionBackwardData") &&
      bind(lib, api.backward_filter_algorithms, "cudnnGetConvolutionBackwardFilterAlgorithm_v7") &&
      bind(lib, api.backward_filter_workspace, "cudnnGetConvolutionBackwardFilterWorkspaceSize") &&
      bind(lib, api.backward_filter, "cudnnConvolutionBackwardFilter");
  if (!bound) return nullptr;
  if (const int status = create(&api.handle); status != cudnn_enum::kSuccess) {
    log_backend(std::string("cuDNN: cudnnCreate failed: ") + api.get_error_string(status) + "; the own kernels run");
    return nullptr;
  }
  if (set_stream(api.handle, current_stream()) != cudnn_enum::kSuccess) {
    log_backend("cuDNN: cudnnSetStream failed; the own kernels run");
    return nullptr;
  }
  api.float32_math = tf32_enabled() ? cudnn_enum::kTensorOpMath : cudnn_enum::kFmaMath;
  log_backend("cuDNN: version " + std::to_string(version()) + ", float32 math " + float32_math_name());
  return &api;
}

}  // namespace

const CudnnApi* cudnn() {
  static const CudnnApi* const api = load();
  return api;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
