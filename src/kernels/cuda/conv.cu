// Direct convolution on channels-last tensors, float32 and float64: each thread computes one
// element of the result (an output, an input gradient or a weight gradient's partial sum) by
// walking the window taps that touch it, so no two threads write the same element and no atomics
// are needed. Correct on any geometry (groups, dilation, asymmetric padding, 1-3 spatial axes);
// on a GPU with cuDNN, cudnn_conv.cpp takes the float32 cases it supports.
#include "kernels/cuda/conv.hpp"
#include "kernels/cuda/cudnn_conv.hpp"
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/reduce.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {

using dispatch::ConvGeometry;

// The geometry as plain numbers a kernel can capture. Spatial positions are flattened over the
// three axes of dispatch::Window (absent leading axes have size 1).
struct ConvShape {
  int64_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3];
  int64_t batch, C, O, Cg, Og;

  explicit ConvShape(const ConvGeometry& g) {
    for (int a = 0; a < 3; ++a) {
      in[a] = g.win.in[a], out[a] = g.win.out[a], kernel[a] = g.win.kernel[a];
      stride[a] = g.win.stride[a], dilation[a] = g.win.dilation[a], pad[a] = g.win.pad_before[a];
    }
    batch = g.win.batch, C = g.in_channels, O = g.out_channels, Cg = C / g.groups, Og = O / g.groups;
  }
  STRATA_HD int64_t in_size() const { return in[0] * in[1] * in[2]; }
  STRATA_HD int64_t out_size() const { return out[0] * out[1] * out[2]; }
  STRATA_HD int64_t taps() const { return kernel[0] * kernel[1] * kernel[2]; }
  // Row-major coordinates of `flat` over `sizes` (3 axes).
  STRATA_HD static void unflatten(int64_t flat, const int64_t* sizes, int64_t* at) {
    at[2] = flat % sizes[2];
    at[1] = flat / sizes[2] % sizes[1];
    at[0] = flat / (sizes[1] * sizes[2]);
  }
  // The input position that output position `o` reads through tap `t`, or -1 in the padding.
  STRATA_HD int64_t input_at(int64_t o, int64_t t) const {
    int64_t oa[3], ta[3], pos = 0;
    unflatten(o, out, oa);
    unflatten(t, kernel, ta);
    for (int a = 0; a < 3; ++a) {
      const int64_t i = oa[a] * stride[a] - pad[a] + ta[a] * dilation[a];
      if (i < 0 || i >= in[a]) return -1;
      pos = pos * in[a] + i;
    }
    return pos;
  }
  // The output position that reads input position `i` through tap `t`, or -1 if none does.
  STRATA_HD int64_t output_at(int64_t i, int64_t t) const {
    int64_t ia[3], ta[3], pos = 0;
    unflatten(i, in, ia);
    unflatten(t, kernel, ta);
    for (int a = 0; a < 3; ++a) {
      const int64_t shifted = ia[a] + pad[a] - ta[a] * dilation[a];
      if (shifted < 0 || shifted % stride[a] != 0 || shifted / stride[a] >= out[a]) return -1;
      pos = pos * out[a] + shifted / stride[a];
    }
    return pos;
  }
};

template <class T>
void forward(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y, const ConvShape s, bool relu) {
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  const T* pb = b.defined() ? b.data<T>() : nullptr;
  T* py = y.data<T>();
  // y element (n, position, o): the group's Cg input channels at every tap.
  for_each_index(y.numel(), "conv_forward", [=] STRATA_HD(int64_t e) {
    const int64_t o = e % s.O, pos = e / s.O % s.out_size(), n = e / (s.O * s.out_size());
    const int64_t c0 = o / s.Og * s.Cg;
    T acc = pb ? pb[o] : T(0);
    for (int64_t t = 0; t < s.taps(); ++t) {
      const int64_t i = s.input_at(pos, t);
      if (i < 0) continue;
      const T* xi = px + (n * s.in_size() + i) * s.C + c0;
      const T* wt = pw + t * s.Cg * s.O + o;
      for (int64_t c = 0; c < s.Cg; ++c) acc += xi[c] * wt[c * s.O];
    }
    py[e] = relu && acc < T(0) ? T(0) : acc;
  });
}

template <class T>
void backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const ConvShape s) {
  const T* pdy = dy.data<T>();
  const T* pw = w.data<T>();
  T* pdx = dx.data<T>();
  // dx element (n, position, c): every output of c's group that read it, through each tap.
  for_each_index(dx.numel(), "conv_backward_data", [=] STRATA_HD(int64_t e) {
    const int64_t c = e % s.C, pos = e / s.C % s.in_size(), n = e / (s.C * s.in_size());
    const int64_t o0 = c / s.Cg * s.Og, cg = c % s.Cg;
    T acc = 0;
    for (int64_t t = 0; t < s.taps(); ++t) {
      const int64_t out = s.output_at(pos, t);
      if (out < 0) continue;
      const T* dyo = pdy + (n * s.out_size() + out) * s.O + o0;
      const T* wt = pw + (t * s.Cg + cg) * s.O + o0;
      for (int64_t o = 0; o < s.Og; ++o) acc += dyo[o] * wt[o];
    }
    pdx[e] = acc;
  });
}

// dw element (tap, cg, o) sums over every sample and output position: batch x positions terms.
// One thread per weight would leave most of a GPU idle on a long loop, so the (sample, position)
// rows are split into `parts` ranges: pass one writes a partial sum per (part, weight), pass two
// adds each weight's parts in order.
template <class T>
void backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, const ConvShape s) {
  const T* px = x.data<T>();
  const T* pdy = dy.data<T>();
  T* pdw = dw.data<T>();
  const int64_t weights = dw.numel(), rows = s.batch * s.out_size();
  constexpr int64_t enough_threads = int64_t{1} << 17, shortest_part = 32;
  const int64_t parts = std::clamp<int64_t>(enough_threads / std::max<int64_t>(weights, 1), 1,
                                            std::max<int64_t>(rows / shortest_part, 1));
  const int64_t part_rows = (rows + parts - 1) / parts;
  Tensor partial = Tensor::empty({parts, weights}, dw.dtype(), dw.device());
  T* pp = partial.data<T>();
  for_each_index(parts * weights, "conv_backward_weights", [=] STRATA_HD(int64_t k) {
    const int64_t e = k % weights, part = k / weights;
    const int64_t o = e % s.O, cg = e / s.O % s.Cg, t = e / (s.O * s.Cg);
    const int64_t c = o / s.Og * s.Cg + cg;
    const int64_t first = part * part_rows, last = first + part_rows < rows ? first + part_rows : rows;
    T acc = 0;
    for (int64_t r = first; r < last; ++r) {
      const int64_t n = r / s.out_size(), pos = r % s.out_size();
      const int64_t i = s.input_at(pos, t);
      if (i >= 0) acc += px[(n * s.in_size() + i) * s.C + c] * pdy[r * s.O + o];
    }
    pp[k] = acc;
  });
  for_each_index(weights, "conv_backward_weights_parts", [=] STRATA_HD(int64_t e) {
    T acc = 0;
    for (int64_t part = 0; part < parts; ++part) acc += pp[part * weights + e];
    pdw[e] = acc;
  });
}

}  // namespace detail

Tensor bias_gradient(const Tensor& dy, int64_t channels) {
  const Tensor rows = dense(dy).reshape({-1, channels});
  return reduce(dispatch::ReduceOp::sum, rows, {true, false}, false);
}

Tensor conv_forward(const Tensor& x_in, const Tensor& w_in, const Tensor& b_in, const dispatch::ConvGeometry& g) {
  if (const CudnnApi* api = cudnn(); api && cudnn_takes(x_in, g)) return cudnn_conv_forward(*api, x_in, w_in, b_in, g);
  const Tensor x = dense(x_in), w = dense(w_in), b = b_in.defined() ? dense(b_in) : b_in;
  Tensor y = Tensor::empty(g.win.activation_shape(g.win.out, g.out_channels), x.dtype(), x.device());
  dispatch_floating(x.dtype(), "conv_forward", [&](auto tag) {
    detail::forward<typename decltype(tag)::type>(x, w, b, y, detail::ConvShape(g), g.relu);
  });
  return y;
}

Tensor conv_backward_data(const Tensor& dy_in, const Tensor& w_in, const dispatch::ConvGeometry& g) {
  if (const CudnnApi* api = cudnn(); api && cudnn_takes(dy_in, g)) return cudnn_conv_backward_data(*api, dy_in, w_in, g);
  const Tensor dy = dense(dy_in), w = dense(w_in);
  Tensor dx = Tensor::empty(g.win.activation_shape(g.win.in, g.in_channels), dy.dtype(), dy.device());
  dispatch_floating(dy.dtype(), "conv_backward_data", [&](auto tag) {
    detail::backward_data<typename decltype(tag)::type>(dy, w, dx, detail::ConvShape(g));
  });
  return dx;
}

std::pair<Tensor, Tensor> conv_backward_weights(const Tensor& x_in, const Tensor& dy_in,
                                                const dispatch::ConvGeometry& g, bool with_bias) {
  if (const CudnnApi* api = cudnn(); api && cudnn_takes(x_in, g))
    return {cudnn_conv_backward_weights(*api, x_in, dy_in, g), with_bias ? bias_gradient(dy_in, g.out_channels) : Tensor()};
  const Tensor x = dense(x_in), dy = dense(dy_in);
  Tensor dw = Tensor::empty(g.weights_shape(), x.dtype(), x.device());
  dispatch_floating(x.dtype(), "conv_backward_weights", [&](auto tag) {
    detail::backward_weights<typename decltype(tag)::type>(x, dy, dw, detail::ConvShape(g));
  });
  return {dw, with_bias ? bias_gradient(dy, g.out_channels) : Tensor()};
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
