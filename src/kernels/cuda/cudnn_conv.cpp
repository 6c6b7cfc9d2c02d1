// Convolutions through cuDNN's legacy API (cudnn_api.hpp) where cuDNN is loaded: float32 on
// channels-last tensors, 1 to 3 spatial axes, groups, strides, dilations and symmetric padding.
// Activations go to cuDNN as they are (NHWC / NDHWC, which cuDNN supports natively); Strata's
// weights [k..., C / groups, O] are permuted to cuDNN's NHWC filter layout [O, k..., C / groups]
// per call (and the weight gradient back), a copy of the weights' size, small beside the
// activations'. The algorithm is cuDNN's own first choice for the shape (its heuristics, as
// PyTorch's default), looked up once per shape and kept. What cuDNN does not take here
// (asymmetric padding, float64, sizes past int) runs on the own kernels (conv.cu).
#include "kernels/cuda/cudnn_conv.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cuda/conv.hpp"
#include "kernels/cuda/elementwise.hpp"
#include "strata/core/error.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

using dispatch::ConvGeometry;

void check_cudnn(const CudnnApi& api, int status, const char* call) {
  if (status != cudnn_enum::kSuccess)
    throw Error(std::string("cuDNN: ") + call + " failed: " + api.get_error_string(status));
}

// cuDNN's view of the geometry: 4 dimensions for 1 and 2 spatial axes (a 1-D convolution is a
// 2-D one of height 1), 5 for 3. Dimensions are listed N, C, spatial... whatever the layout.
struct CudnnShape {
  int dims = 0;  // 4 or 5
  std::vector<int> x, y, w, pad, stride, dilation;
};

CudnnShape cudnn_shape(const ConvGeometry& g) {
  const dispatch::Window& win = g.win;
  CudnnShape s;
  s.dims = win.nsp == 3 ? 5 : 4;
  const int spatial = s.dims - 2, first = 3 - spatial;  // Window's axes used, the last `spatial`
  auto i32 = [](int64_t v) { return static_cast<int>(v); };
  s.x = {i32(win.batch), i32(g.in_channels)};
  s.y = {i32(win.batch), i32(g.out_channels)};
  s.w = {i32(g.out_channels), i32(g.in_channels / g.groups)};
  for (int a = first; a < 3; ++a) {
    s.x.push_back(i32(win.in[a]));
    s.y.push_back(i32(win.out[a]));
    s.w.push_back(i32(win.kernel[a]));
    s.pad.push_back(i32(win.pad_before[a]));
    s.stride.push_back(i32(win.stride[a]));
    s.dilation.push_back(i32(win.dilation[a]));
  }
  return s;
}

// The descriptors of one call, destroyed with it.
class Descriptors {
 public:
  Descriptors(const CudnnApi& api, const ConvGeometry& g, int data_type) : api_(api) {
    const CudnnShape s = cudnn_shape(g);
    check_cudnn(api, api.create_tensor_desc(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(api, api.create_tensor_desc(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(api, api.create_filter_desc(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(api, api.create_conv_desc(&conv), "cudnnCreateConvolutionDescriptor");
    using namespace cudnn_enum;
    check_cudnn(api, api.set_tensor_nd_desc_ex(x, kNhwc, data_type, s.dims, s.x.data()), "cudnnSetTensorNdDescriptorEx");
    check_cudnn(api, api.set_tensor_nd_desc_ex(y, kNhwc, data_type, s.dims, s.y.data()), "cudnnSetTensorNdDescriptorEx");
    check_cudnn(api, api.set_filter_nd_desc(w, data_type, kNhwc, s.dims, s.w.data()), "cudnnSetFilterNdDescriptor");
    check_cudnn(api,
                api.set_conv_nd_desc(conv, s.dims - 2, s.pad.data(), s.stride.data(), s.dilation.data(),
                                     kCrossCorrelation, data_type == kDouble ? kDouble : kFloat),
                "cudnnSetConvolutionNdDescriptor");
    check_cudnn(api, api.set_conv_group_count(conv, static_cast<int>(g.groups)), "cudnnSetConvolutionGroupCount");
    check_cudnn(api, api.set_conv_math_type(conv, api.float32_math), "cudnnSetConvolutionMathType");
  }
  ~Descriptors() {
    if (x) api_.destroy_tensor_desc(x);
    if (y) api_.destroy_tensor_desc(y);
    if (w) api_.destroy_filter_desc(w);
    if (conv) api_.destroy_conv_desc(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  CudnnDesc x = nullptr, y = nullptr, w = nullptr, conv = nullptr;

 private:
  const CudnnApi& api_;
};

enum class Pass { forward, backward_data, backward_filter };

struct Choice {
  int algo;
  size_t workspace;
};

// The algorithm for (pass, geometry), asked of cuDNN's heuristics once and kept: the first it
// ranks that ran its check successfully and needs at most 1 GiB of workspace.
Choice choose(const CudnnApi& api, Pass pass, const ConvGeometry& g, const Descriptors& d) {
  const dispatch::Window& win = g.win;
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int, std::array<int64_t, 18>>;
  Key key{static_cast<int>(pass), win.batch, g.in_channels, g.out_channels, g.groups, win.nsp, {}};
  for (int a = 0; a < 3; ++a) {
    const int64_t values[6] = {win.in[a], win.kernel[a], win.stride[a], win.dilation[a], win.pad_before[a],
                               win.pad_after[a]};
    for (int v = 0; v < 6; ++v) std::get<6>(key)[a * 6 + v] = values[v];
  }
  static std::mutex mutex;
  static std::map<Key, Choice> chosen;
  std::lock_guard lock(mutex);
  if (auto it = chosen.find(key); it != chosen.end()) return it->second;

  constexpr int requested = 8;
  constexpr size_t workspace_limit = size_t{1} << 30;
  CudnnAlgoPerf results[requested] = {};
  int returned = 0;
  switch (pass) {
    case Pass::forward:
      check_cudnn(api, api.forward_algorithms(api.handle, d.x, d.w, d.conv, d.y, requested, &returned, results),
                  "cudnnGetConvolutionForwardAlgorithm_v7");
      break;
    case Pass::backward_data:
      check_cudnn(api,
                  api.backward_data_algorithms(api.handle, d.w, d.y, d.conv, d.x, requested, &returned, results),
                  "cudnnGetConvolutionBackwardDataAlgorithm_v7");
      break;
    case Pass::backward_filter:
      check_cudnn(api,
                  api.backward_filter_algorithms(api.handle, d.x, d.y, d.conv, d.w, requested, &returned, results),
                  "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
      break;
  }
  for (int i = 0; i < returned; ++i) {
    if (results[i].status != cudnn_enum::kSuccess || results[i].memory > workspace_limit) continue;
    size_t bytes = 0;
    const int algo = results[i].algo;
    const int status =
        pass == Pass::forward         ? api.forward_workspace(api.handle, d.x, d.w, d.conv, d.y, algo, &bytes)
        : pass == Pass::backward_data ? api.backward_data_workspace(api.handle, d.w, d.y, d.conv, d.x, algo, &bytes)
                                      : api.backward_filter_workspace(api.handle, d.x, d.y, d.conv, d.w, algo, &bytes);
    if (status != cudnn_enum::kSuccess) continue;
    return chosen[key] = Choice{algo, bytes};
  }
  throw Error("cuDNN: no convolution algorithm for this shape");
}

Tensor workspace(size_t bytes, const Device& device) {
  return bytes == 0 ? Tensor() : Tensor::empty({static_cast<int64_t>(bytes)}, kUInt8, device);
}

// Strata's [k..., Cg, O] weights as cuDNN's NHWC filter, [O, k..., Cg], and back.
Tensor to_cudnn_filter(const Tensor& w) {
  const int64_t n = w.dim();
  Shape order{n - 1};
  for (int64_t a = 0; a < n - 1; ++a) order.push_back(a);
  return contiguous_copy(w.permute(order));
}
Tensor from_cudnn_filter(const Tensor& w) {
  const int64_t n = w.dim();
  Shape order;
  for (int64_t a = 1; a < n; ++a) order.push_back(a);
  order.push_back(0);
  return contiguous_copy(w.permute(order));
}

void* data_of(const Tensor& t) { return t.defined() ? const_cast<void*>(t.raw_data()) : nullptr; }

}  // namespace

bool cudnn_takes(const Tensor& x, const ConvGeometry& g) {
  if (x.dtype() != kFloat32 || g.win.nsp < 1 || g.win.nsp > 3) return false;
  for (int a = 0; a < 3; ++a)
    if (g.win.pad_before[a] != g.win.pad_after[a]) return false;
  const int64_t largest = std::max({x.numel(), g.win.batch * g.win.in_size() * g.in_channels,
                                    g.win.batch * g.win.out_size() * g.out_channels,
                                    g.win.kernel_size() * g.in_channels / g.groups * g.out_channels});
  return largest < INT_MAX;
}

Tensor cudnn_conv_forward(const CudnnApi& api, const Tensor& x_in, const Tensor& w_in, const Tensor& b,
                          const ConvGeometry& g) {
  const Tensor x = dense(x_in), w = to_cudnn_filter(w_in);
  Tensor y = Tensor::empty(g.win.activation_shape(g.win.out, g.out_channels), x.dtype(), x.device());
  if (y.numel() == 0) return y;
  const Descriptors d(api, g, cudnn_enum::kFloat);
  const Choice c = choose(api, Pass::forward, g, d);
  const Tensor space = workspace(c.workspace, x.device());
  // The bias is written first and the convolution added to it (beta = 1): no second pass.
  if (b.defined()) copy_into(y, b);
  const float alpha = 1, beta = b.defined() ? 1.f : 0.f;
  check_cudnn(api,
              api.forward(api.handle, &alpha, d.x, x.raw_data(), d.w, w.raw_data(), d.conv, c.algo, data_of(space),
                          c.workspace, &beta, d.y, y.raw_data()),
              "cudnnConvolutionForward");
  return g.relu ? unary(dispatch::UnaryOp::relu, y, 0, 0) : y;
}

Tensor cudnn_conv_backward_data(const CudnnApi& api, const Tensor& dy_in, const Tensor& w_in, const ConvGeometry& g) {
  const Tensor dy = dense(dy_in), w = to_cudnn_filter(w_in);
  Tensor dx = Tensor::empty(g.win.activation_shape(g.win.in, g.in_channels), dy.dtype(), dy.device());
  if (dx.numel() == 0) return dx;
  if (dy.numel() == 0) return fill(dx, 0), dx;
  const Descriptors d(api, g, cudnn_enum::kFloat);
  const Choice c = choose(api, Pass::backward_data, g, d);
  const Tensor space = workspace(c.workspace, dy.device());
  const float alpha = 1, beta = 0;
  check_cudnn(api,
              api.backward_data(api.handle, &alpha, d.w, w.raw_data(), d.y, dy.raw_data(), d.conv, c.algo,
                                data_of(space), c.workspace, &beta, d.x, dx.raw_data()),
              "cudnnConvolutionBackwardData");
  return dx;
}

Tensor cudnn_conv_backward_weights(const CudnnApi& api, const Tensor& x_in, const Tensor& dy_in,
                                   const ConvGeometry& g) {
  const Tensor x = dense(x_in), dy = dense(dy_in);
  Shape filter{g.out_channels};
  const Shape strata_filter = g.weights_shape();
  for (int a = 0; a + 1 < strata_filter.size(); ++a) filter.push_back(strata_filter[a]);  // [O, k..., Cg]
  Tensor dw = Tensor::empty(filter, x.dtype(), x.device());
  if (dw.numel() == 0) return from_cudnn_filter(dw);
  if (dy.numel() == 0 || x.numel() == 0) return fill(dw, 0), from_cudnn_filter(dw);
  const Descriptors d(api, g, cudnn_enum::kFloat);
  const Choice c = choose(api, Pass::backward_filter, g, d);
  const Tensor space = workspace(c.workspace, x.device());
  const float alpha = 1, beta = 0;
  check_cudnn(api,
              api.backward_filter(api.handle, &alpha, d.x, x.raw_data(), d.y, dy.raw_data(), d.conv, c.algo,
                                  data_of(space), c.workspace, &beta, d.w, dw.raw_data()),
              "cudnnConvolutionBackwardFilter");
  return from_cudnn_filter(dw);
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
