// The CPU's prepared kernels (strata/dispatch/prepared.hpp): oneDNN primitives made for
// inference (forward_inference lets oneDNN skip what training keeps), the activation as an
// eltwise post-op, and the weights reordered into the primitive's layout once, where the eager
// convolution reorders them at every call. Dense runs on oneDNN's matmul at every batch size,
// batch 1 included: with its weights in the layout it picked, 14 us for the `make run` CNN's
// 1568x256 layer where the eager GEMV (gemv.cpp, weights as they are) takes 45 us, one thread.
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

Tensor dense_copy(const Tensor& t) { return !t.defined() || t.is_contiguous() ? t : contiguous_copy(t); }

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

// The weights in the layout `pd` asked for: reordered once from ours (`user`) into memory the
// kernel owns, or ours as they are when the layouts agree.
memory weights_in(const memory::desc& user, const memory::desc& wanted, const Tensor& w) {
  memory ours(user, dnnl_engine(), handle_of(w));
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
// only time a run builds anything). x and y are re-pointed at every run.
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
  void run(const Tensor& x, const Tensor& y) const override {
    Made& m = made_for(apply_thread_budget());
    src_.set_data_handle(handle_of(x));
    dst_.set_data_handle(handle_of(y));
    run_primitive(m.prim, m.pd, m.args);
  }

 private:
  Made& made_for(int threads) const {
    for (auto& [t, m] : made_)
      if (t == threads) return m;
    Made m = make_();
    m.args[DNNL_ARG_SRC] = src_;
    m.args[DNNL_ARG_DST] = dst_;
    made_.emplace_back(threads, std::move(m));
    return made_.back().second;
  }
  memory src_, dst_;
  Make make_;
  std::vector<Tensor> keep_;  // the tensors whose bytes the memories point at
  mutable std::vector<std::pair<int, Made>> made_;
};

std::unique_ptr<dispatch::PreparedKernel> prepare_conv(const Tensor& w_in, const Tensor& b_in, const ConvGeometry& g,
                                                       FusedActivation act) {
  STRATA_CHECK(w_in.dtype() == kFloat32, "prepare_conv: float32 only, got ", dtype_name(w_in.dtype()));
  const Tensor w = dense_copy(w_in), b = dense_copy(b_in);
  const Window& win = g.win;
  const memory::desc src = channels_last_md(win, win.in, g.in_channels),
                     dst = channels_last_md(win, win.out, g.out_channels);
  const memory::desc any_weights(user_weights_md(g).dims(), f32, tag::any), bias({g.out_channels}, f32, tag::a);
  using D = dnnl::convolution_forward::desc;
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto strides = real_axes(win, win.stride), dil = real_axes(win, win.dilation, 1);
  const auto pl = real_axes(win, win.pad_before), pr = real_axes(win, win.pad_after);
  const D d = b.defined() ? D(prop, alg, src, any_weights, bias, dst, strides, dil, pl, pr)
                          : D(prop, alg, src, any_weights, dst, strides, dil, pl, pr);
  auto make = [=] {
    dnnl::convolution_forward::primitive_desc pd(d, attr_for(act), dnnl_engine());
    Made m{
        dnnl::convolution_forward(pd), pd, {{DNNL_ARG_WEIGHTS, weights_in(user_weights_md(g), pd.weights_desc(), w)}}};
    if (b.defined()) m.args[DNNL_ARG_BIAS] = memory(bias, dnnl_engine(), handle_of(b));
    return m;
  };
  return std::make_unique<PreparedPrimitive>(src, dst, make, std::vector<Tensor>{w, b});
}

std::unique_ptr<dispatch::PreparedKernel> prepare_linear(const Tensor& w_in, const Tensor& b_in, int64_t rows,
                                                         FusedActivation act) {
  STRATA_CHECK(w_in.dtype() == kFloat32, "prepare_linear: float32 only, got ", dtype_name(w_in.dtype()));
  const Tensor w = dense_copy(w_in), b = dense_copy(b_in);
  const int64_t I = w.size(0), O = w.size(1);
  const memory::desc src({rows, I}, f32, tag::ab), dst({rows, O}, f32, tag::ab), user({I, O}, f32, tag::ab);
  const memory::desc any_weights({I, O}, f32, tag::any), bias({1, O}, f32, tag::ab);
  const dnnl::matmul::desc d =
      b.defined() ? dnnl::matmul::desc(src, any_weights, bias, dst) : dnnl::matmul::desc(src, any_weights, dst);
  auto make = [=] {
    dnnl::matmul::primitive_desc pd(d, attr_for(act), dnnl_engine());
    Made m{dnnl::matmul(pd), pd, {{DNNL_ARG_WEIGHTS, weights_in(user, pd.weights_desc(), w)}}};
    if (b.defined()) m.args[DNNL_ARG_BIAS] = memory(bias, dnnl_engine(), handle_of(b));
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

[[maybe_unused]] const bool registered = [] {
  dispatch::prepare_pool.set(DeviceType::CPU, &prepare_pool);
  dispatch::prepare_conv.set(DeviceType::CPU, &prepare_conv);
  dispatch::prepare_linear.set(DeviceType::CPU, &prepare_linear);
  return true;
}();

}  // namespace
}  // namespace strata::kernels::cpu
