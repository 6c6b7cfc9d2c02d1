// The CPU's prepared kernels (strata/dispatch/prepared.hpp): oneDNN primitives made for
// inference (forward_inference lets oneDNN skip what training keeps), the activation as an
// eltwise post-op, and the weights reordered into the primitive's layout once, where the eager
// convolution reorders them at every call. Dense runs on oneDNN's matmul at every batch size,
// batch 1 included: with its weights in the layout it picked, 14 us for the `make run` CNN's
// 1568x256 layer where the eager GEMV (gemv.cpp, weights as they are) takes 45 us, one thread.
// The int8 kernels (nn/int8.hpp) are the same primitives on u8 inputs and s8 weights, with
// per-channel output scales, after a pass that quantises the float input.
#include <algorithm>
#include <cmath>
#include <functional>

#include "kernels/cpu/conv_weights_md.hpp"
#include "kernels/cpu/dnnl_window.hpp"
#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/max_pool_2x2.hpp"
#include "strata/dispatch/prepared.hpp"

namespace strata::kernels::cpu {
namespace {

using dispatch::FusedActivation;
using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;
constexpr auto u8 = memory::data_type::u8, s8 = memory::data_type::s8, s32 = memory::data_type::s32;

dnnl::post_ops activation_post_op(FusedActivation act) {
  dnnl::post_ops ops;
  if (act == FusedActivation::relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (act == FusedActivation::tanh) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f);
  if (act == FusedActivation::sigmoid) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f);
  return ops;
}

dnnl::primitive_attr attr_for(FusedActivation act) {
  dnnl::primitive_attr attr = own_scratchpad();
  if (act != FusedActivation::none) attr.set_post_ops(activation_post_op(act));
  return attr;
}

void* handle_of(const Tensor& t) { return t.raw_data(); }

// The weights in the layout `pd` asked for: reordered once from ours (`user`, at `data`) into
// memory the kernel owns, or ours as they are when the layouts agree.
memory weights_in(const memory::desc& user, const memory::desc& wanted, void* data) {
  memory ours(user, dnnl_engine(), data);
  if (user == wanted) return ours;
  memory theirs(wanted, dnnl_engine());
  dnnl::reorder::primitive_desc pd(dnnl_engine(), user, dnnl_engine(), wanted, own_scratchpad());
  run_primitive(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, ours}, {DNNL_ARG_TO, theirs}});
  return theirs;
}

// A primitive with the memories it always reads (the weights in its layout, the bias), made for
// a thread count.
struct Made {
  dnnl::primitive prim;
  dnnl::primitive_desc_base pd;
  std::unordered_map<int, memory> args;
};

// One primitive per thread count: oneDNN plans a primitive for the threads of its creation, and
// the thread budget (thread_budget.hpp) changes with the machine's load, so a kernel made while
// another process was busy would stay on one thread. A new count makes its own (at a run, the
// only time a run builds anything). x and y are re-pointed at every run. Each primitive has a
// scratchpad of its own (a kernel runs once at a time), so a run executes the arguments as made,
// without run_primitive's per-call argument map and scratchpad memory (7 us of the `make run`
// CNN's batch-1 inference on one thread: docs/compiled_models.md, "Figures").
class PreparedPrimitive : public dispatch::PreparedKernel {
 public:
  using Make = std::function<Made()>;
  PreparedPrimitive(memory::desc src, memory::desc dst, Make make, std::vector<Tensor> keep)
      : src_(src, dnnl_engine(), DNNL_MEMORY_NONE),
        dst_(dst, dnnl_engine(), DNNL_MEMORY_NONE),
        make_(std::move(make)),
        keep_(std::move(keep)) {
    made_for(apply_thread_budget());
  }
  void run(const Tensor& x, const Tensor& y) const override { execute(handle_of(x), handle_of(y)); }

 protected:
  void execute(void* src, void* dst) const {
    Made& m = made_for(apply_thread_budget());
    src_.set_data_handle(src);
    dst_.set_data_handle(dst);
    dnnl::stream& stream = dnnl_stream();
    m.prim.execute(stream, m.args);
    stream.wait();
  }

 private:
  Made& made_for(int threads) const {
    for (auto& [t, m] : made_)
      if (t == threads) return m;
    Made m = make_();
    m.args[DNNL_ARG_SRC] = src_;
    m.args[DNNL_ARG_DST] = dst_;
    if (const memory::desc need = m.pd.scratchpad_desc(); need.get_size() > 0)
      m.args[DNNL_ARG_SCRATCHPAD] = memory(need, dnnl_engine());
    made_.emplace_back(threads, std::move(m));
    return made_.back().second;
  }
  memory src_, dst_;
  Make make_;
  std::vector<Tensor> keep_;  // the tensors whose bytes the memories point at
  mutable std::vector<std::pair<int, Made>> made_;
};

// The weights' type for inputs of `type`: s8 for u8 (int8), else the same.
memory::data_type weights_type(memory::data_type type) { return type == u8 ? s8 : type; }

// The inference convolution of g's geometry from `src` (channels-last, of `type`) to float32
// channels-last, its weights in the layout the primitive picks, a float32 bias or none.
dnnl::convolution_forward::desc inference_conv(const ConvGeometry& g, const memory::desc& src, memory::data_type type,
                                               bool bias) {
  const Window& win = g.win;
  const memory::desc dst = channels_last_md(win, win.out, g.out_channels);
  const memory::desc any_weights(user_weights_md(g).dims(), weights_type(type), tag::any),
      bias_md({g.out_channels}, f32, tag::a);
  using D = dnnl::convolution_forward::desc;
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto strides = real_axes(win, win.stride), dil = real_axes(win, win.dilation, 1);
  const auto pl = real_axes(win, win.pad_before), pr = real_axes(win, win.pad_after);
  return bias ? D(prop, alg, src, any_weights, bias_md, dst, strides, dil, pl, pr)
              : D(prop, alg, src, any_weights, dst, strides, dil, pl, pr);
}

// The matmul [rows, I] (of `type`) x [I, O] (in the layout the primitive picks) to float32.
dnnl::matmul::desc inference_matmul(int64_t rows, int64_t I, int64_t O, memory::data_type type, bool bias) {
  const memory::desc src({rows, I}, type, tag::ab), dst({rows, O}, f32, tag::ab);
  const memory::desc any_weights({I, O}, weights_type(type), tag::any), bias_md({1, O}, f32, tag::ab);
  return bias ? dnnl::matmul::desc(src, any_weights, bias_md, dst) : dnnl::matmul::desc(src, any_weights, dst);
}

std::unique_ptr<dispatch::PreparedKernel> prepare_conv(const Tensor& w_in, const Tensor& b_in, const ConvGeometry& g,
                                                       FusedActivation act) {
  STRATA_CHECK(w_in.dtype() == kFloat32, "prepare_conv: float32 only, got ", dtype_name(w_in.dtype()));
  const Tensor w = dense(w_in), b = dense(b_in);
  const Window& win = g.win;
  const memory::desc src = channels_last_md(win, win.in, g.in_channels),
                     dst = channels_last_md(win, win.out, g.out_channels);
  const dnnl::convolution_forward::desc d = inference_conv(g, src, f32, b.defined());
  auto make = [=] {
    dnnl::convolution_forward::primitive_desc pd(d, attr_for(act), dnnl_engine());
    Made m{dnnl::convolution_forward(pd),
           pd,
           {{DNNL_ARG_WEIGHTS, weights_in(user_weights_md(g), pd.weights_desc(), handle_of(w))}}};
    if (b.defined()) m.args[DNNL_ARG_BIAS] = memory(pd.bias_desc(), dnnl_engine(), handle_of(b));
    return m;
  };
  return std::make_unique<PreparedPrimitive>(src, dst, make, std::vector<Tensor>{w, b});
}

std::unique_ptr<dispatch::PreparedKernel> prepare_linear(const Tensor& w_in, const Tensor& b_in, int64_t rows,
                                                         FusedActivation act) {
  STRATA_CHECK(w_in.dtype() == kFloat32, "prepare_linear: float32 only, got ", dtype_name(w_in.dtype()));
  const Tensor w = dense(w_in), b = dense(b_in);
  const int64_t I = w.size(0), O = w.size(1);
  const memory::desc src({rows, I}, f32, tag::ab), dst({rows, O}, f32, tag::ab), user({I, O}, f32, tag::ab);
  const dnnl::matmul::desc d = inference_matmul(rows, I, O, f32, b.defined());
  auto make = [=] {
    dnnl::matmul::primitive_desc pd(d, attr_for(act), dnnl_engine());
    Made m{dnnl::matmul(pd), pd, {{DNNL_ARG_WEIGHTS, weights_in(user, pd.weights_desc(), handle_of(w))}}};
    if (b.defined()) m.args[DNNL_ARG_BIAS] = memory(pd.bias_desc(), dnnl_engine(), handle_of(b));
    return m;
  };
  return std::make_unique<PreparedPrimitive>(src, dst, make, std::vector<Tensor>{w, b});
}

// The 2x2 max pool that tiles its input: the loops eager pooling runs (max_pool_2x2.hpp).
class PreparedMaxPool2x2 : public dispatch::PreparedKernel {
 public:
  explicit PreparedMaxPool2x2(const PoolGeometry& g) : g_(g) {}
  void run(const Tensor& x, const Tensor& y) const override {
    max_pool_2x2_forward(static_cast<const float*>(handle_of(x)), static_cast<float*>(handle_of(y)), nullptr, g_);
  }

 private:
  PoolGeometry g_;
};

std::unique_ptr<dispatch::PreparedKernel> prepare_pool(const PoolGeometry& g) {
  if (is_tiling_max_pool_2x2(g)) return std::make_unique<PreparedMaxPool2x2>(g);
  const Window& win = g.win;
  const memory::desc src = channels_last_md(win, win.in, g.channels), dst = channels_last_md(win, win.out, g.channels);
  const dnnl::pooling_forward::desc d(
      dnnl::prop_kind::forward_inference,
      g.max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding, src, dst,
      real_axes(win, win.stride), real_axes(win, win.kernel), real_axes(win, win.pad_before),
      real_axes(win, win.pad_after));
  auto make = [=] {
    dnnl::pooling_forward::primitive_desc pd(d, own_scratchpad(), dnnl_engine());
    return Made{dnnl::pooling_forward(pd), pd, {}};
  };
  return std::make_unique<PreparedPrimitive>(src, dst, make, std::vector<Tensor>{});
}

// ---- int8 (dispatch::prepare_int8_conv, prepare_int8_linear; ops checks the operands)

// What an int8 primitive reads besides its input, shared by the primitives of every thread count.
struct Int8Operands {
  std::vector<int8_t> values;  // w rounded and clamped to [-127, 127], in w's layout
  std::vector<float> scales;   // scale * w_scale[o]: the output scales
  std::vector<float> bias;     // b[o] / scales[o]: oneDNN 2.x adds an int8 primitive's bias to the
                               // int32 accumulator, before the output scale (empty: no bias)
  int32_t zero_point = 0;
};

std::shared_ptr<Int8Operands> int8_operands(const Tensor& w, const Tensor& w_scale, const Tensor& b,
                                            dispatch::Int8Input in) {
  auto q = std::make_shared<Int8Operands>();
  for (float v : w.contiguous().to_vector<float>())
    q->values.push_back(static_cast<int8_t>(std::clamp(std::nearbyint(v), -127.0f, 127.0f)));
  for (float s : w_scale.contiguous().to_vector<float>()) q->scales.push_back(static_cast<float>(in.scale * s));
  if (b.defined()) {
    q->bias = b.contiguous().to_vector<float>();
    for (size_t o = 0; o < q->bias.size(); ++o) q->bias[o] /= q->scales[o];
  }
  q->zero_point = in.zero_point;
  return q;
}

// The primitive's attributes: our scratchpad, per-channel output scales (axis 1 of [m, n] and of
// NCHW), the input's zero point given at run time and the activation.
dnnl::primitive_attr int8_attr(const Int8Operands& q, FusedActivation act) {
  dnnl::primitive_attr attr = attr_for(act);
  attr.set_output_scales(1 << 1, q.scales);
  if (q.zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  return attr;
}

// A made int8 primitive with the weights in its layout (with the zero-point compensation the
// reorder adds), the bias and the zero point.
Made made_int8(dnnl::primitive prim, const dnnl::primitive_desc_base& pd, const memory::desc& user_weights,
               Int8Operands& q) {
  Made m{std::move(prim), pd, {{DNNL_ARG_WEIGHTS, weights_in(user_weights, pd.weights_desc(0), q.values.data())}}};
  if (!q.bias.empty()) m.args[DNNL_ARG_BIAS] = memory(pd.weights_desc(1), dnnl_engine(), q.bias.data());
  if (q.zero_point != 0)
    m.args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = memory({{1}, s32, tag::a}, dnnl_engine(), &q.zero_point);
  return m;
}

// u8 quantisation of n float32 values: clamp(round(x / scale) + zero_point, 0, 255).
void quantize_u8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* q) {
  const float zp = static_cast<float>(zero_point);
  for (int64_t i = 0; i < n; ++i) {
    // The bound first in each comparison: a NaN input lands on 0, never on an undefined cast.
    const float v = std::nearbyint(x[i] / scale) + zp;
    q[i] = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v)));
  }
}

// An int8 primitive behind the pass that quantises its float input into a buffer of its own.
class PreparedInt8 final : public PreparedPrimitive {
 public:
  PreparedInt8(memory::desc src, memory::desc dst, Make make, dispatch::Int8Input in)
      : PreparedPrimitive(src, dst, std::move(make), {}),
        quantized_(src.get_size()),
        scale_(static_cast<float>(in.scale)),
        zero_point_(in.zero_point) {}
  void run(const Tensor& x, const Tensor& y) const override {
    quantize_u8(static_cast<const float*>(handle_of(x)), static_cast<int64_t>(quantized_.size()), scale_, zero_point_,
                quantized_.data());
    execute(quantized_.data(), handle_of(y));
  }

 private:
  mutable std::vector<uint8_t> quantized_;  // the last run's u8 input (one run at a time)
  float scale_;
  int32_t zero_point_;
};

std::unique_ptr<dispatch::PreparedKernel> prepare_int8_conv(const Tensor& w, const Tensor& w_scale, const Tensor& b,
                                                            const ConvGeometry& g, dispatch::Int8Input in,
                                                            FusedActivation act) {
  STRATA_CHECK(g.groups == 1, "prepare_int8_conv: groups 1 only, got ", g.groups);
  const std::shared_ptr<Int8Operands> q = int8_operands(w, w_scale, b, in);
  const Window& win = g.win;
  const memory::desc src = channels_last_md(win, win.in, g.in_channels, u8),
                     dst = channels_last_md(win, win.out, g.out_channels);
  // Ours, [k..., C, O]: oneDNN's (O, C, k...) as wio / hwio / dhwio.
  const memory::desc user(user_weights_md(g).dims(), s8,
                          win.nsp == 1   ? tag::wio
                          : win.nsp == 2 ? tag::hwio
                                         : tag::dhwio);
  const dnnl::convolution_forward::desc d = inference_conv(g, src, u8, b.defined());
  auto make = [=] {
    dnnl::convolution_forward::primitive_desc pd(d, int8_attr(*q, act), dnnl_engine());
    return made_int8(dnnl::convolution_forward(pd), pd, user, *q);
  };
  return std::make_unique<PreparedInt8>(src, dst, make, in);
}

std::unique_ptr<dispatch::PreparedKernel> prepare_int8_linear(const Tensor& w, const Tensor& w_scale, const Tensor& b,
                                                              int64_t rows, dispatch::Int8Input in,
                                                              FusedActivation act) {
  const std::shared_ptr<Int8Operands> q = int8_operands(w, w_scale, b, in);
  const int64_t I = w.size(0), O = w.size(1);
  const memory::desc src({rows, I}, u8, tag::ab), dst({rows, O}, f32, tag::ab), user({I, O}, s8, tag::ab);
  const dnnl::matmul::desc d = inference_matmul(rows, I, O, u8, b.defined());
  auto make = [=] {
    dnnl::matmul::primitive_desc pd(d, int8_attr(*q, act), dnnl_engine());
    return made_int8(dnnl::matmul(pd), pd, user, *q);
  };
  return std::make_unique<PreparedInt8>(src, dst, make, in);
}

[[maybe_unused]] const bool registered = [] {
  dispatch::prepare_pool.set(DeviceType::CPU, &prepare_pool);
  dispatch::prepare_conv.set(DeviceType::CPU, &prepare_conv);
  dispatch::prepare_linear.set(DeviceType::CPU, &prepare_linear);
  dispatch::prepare_int8_conv.set(DeviceType::CPU, &prepare_int8_conv);
  dispatch::prepare_int8_linear.set(DeviceType::CPU, &prepare_int8_linear);
  return true;
}();

}  // namespace
}  // namespace strata::kernels::cpu
