#include "kernels/cpu/conv_kernels.hpp"

#include <optional>

#include "kernels/cpu/bf16_round.hpp"
#include "kernels/cpu/conv_backward_as_forward.hpp"
#include "kernels/cpu/conv_reference.hpp"
#include "kernels/cpu/conv_weights_md.hpp"
#include "kernels/cpu/dnnl_window.hpp"
#include "kernels/cpu/elementwise.hpp"
#include "strata/core/autocast.hpp"

namespace strata::kernels::cpu {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

memory::desc user_weights_md(const ConvGeometry& g) {
  const int64_t O = g.out_channels, Cg = g.in_channels / g.groups, Og = O / g.groups;
  memory::dims kdims = real_axes(g.win, g.win.kernel), kstrides(kdims.size());
  int64_t stride = Cg * O;
  for (int i = static_cast<int>(kdims.size()) - 1; i >= 0; --i) {
    kstrides[i] = stride;
    stride *= kdims[i];
  }
  memory::dims dims, strides;
  if (g.groups == 1) {
    dims = {O, Cg};
    strides = {1, O};
  } else {
    dims = {g.groups, Og, Cg};
    strides = {Og, 1, O};
  }
  dims.insert(dims.end(), kdims.begin(), kdims.end());
  strides.insert(strides.end(), kstrides.begin(), kstrides.end());
  return memory::desc(dims, f32, strides);
}

namespace {

// The weights' logical dims with format `any`: the primitive picks its blocked layout.
memory::desc any_weights_md(const ConvGeometry& g, memory::data_type type = f32) {
  return memory::desc(user_weights_md(g).dims(), type, tag::any);
}

// The operands' type: f32, or bf16 under autocast (strata/core/autocast.hpp), where source,
// weights and output gradient are bf16 and every result (output, gradients) stays float32.
constexpr auto bf16 = memory::data_type::bf16;
memory::data_type operand_type(bool in_bf16) { return in_bf16 ? bf16 : f32; }
bool autocast_to_bf16(const Tensor& operand) { return operand.dtype() == kFloat32 && autocast_bf16_active(); }
// A dense copy of a float32 operand rounded to bf16 when `in_bf16` (held by an AutocastCopies
// scope, bf16_round.hpp), else the operand made dense.
Tensor operand(const Tensor& t, bool in_bf16) { return in_bf16 ? bf16_operand(t) : dense(t); }

std::string conv_key(const char* name, const ConvGeometry& g, bool bias, bool in_bf16) {
  return window_key(name, g.win) + key_of("", g.in_channels, g.out_channels, g.groups, bias, g.relu, in_bf16);
}

// The backward primitives take the forward one as a hint, without its relu.
ConvGeometry without_relu(ConvGeometry g) {
  g.relu = false;
  return g;
}

// A reorder of the weights between our layout and a primitive's.
struct Reorder {
  dnnl::reorder::primitive_desc pd;
  dnnl::reorder prim;
  void run(const memory& from, const memory& to) const {
    run_primitive(prim, pd, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
  }
};

// A primitive with, when it wants the weights in another layout than ours, the reorder to (or
// from) its layout; both built once per geometry.
struct Forward {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  std::optional<Reorder> weights_in;  // set when the primitive wants another layout
};

struct BackwardData {
  dnnl::convolution_backward_data::primitive_desc pd;
  dnnl::convolution_backward_data prim;
  std::optional<Reorder> weights_in;
};

struct BackwardWeights {
  dnnl::convolution_backward_weights::primitive_desc pd;
  dnnl::convolution_backward_weights prim;
  std::optional<Reorder> weights_out;
};

std::optional<Reorder> reorder_between(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  dnnl::reorder::primitive_desc pd(dnnl_engine(), from, dnnl_engine(), to, own_scratchpad());
  return Reorder{pd, dnnl::reorder(pd)};
}

Forward& forward_primitive(const ConvGeometry& g, bool bias, bool in_bf16) {
  static PrimitiveCache<Forward> cache;
  return cache.get(conv_key("conv_fwd", g, bias, in_bf16), [&] {
    const Window& w = g.win;
    auto src = channels_last_md(w, w.in, g.in_channels, operand_type(in_bf16));
    auto dst = channels_last_md(w, w.out, g.out_channels);
    auto weights = any_weights_md(g, operand_type(in_bf16));
    auto strides = real_axes(w, w.stride), dil = real_axes(w, w.dilation, 1);
    auto pl = real_axes(w, w.pad_before), pr = real_axes(w, w.pad_after);
    using D = dnnl::convolution_forward::desc;
    const auto prop = dnnl::prop_kind::forward_training;
    const auto alg = dnnl::algorithm::convolution_direct;
    D d = bias ? D(prop, alg, src, weights, memory::desc({g.out_channels}, f32, tag::a), dst, strides, dil, pl, pr)
               : D(prop, alg, src, weights, dst, strides, dil, pl, pr);
    dnnl::primitive_attr attr = own_scratchpad();
    if (g.relu) {
      dnnl::post_ops relu;
      relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(relu);
    }
    dnnl::convolution_forward::primitive_desc pd(d, attr, dnnl_engine());
    return Forward{pd, dnnl::convolution_forward(pd), reorder_between(user_weights_md(g), pd.weights_desc())};
  });
}

BackwardData& backward_data_primitive(const ConvGeometry& g, bool in_bf16) {
  static PrimitiveCache<BackwardData> cache;
  return cache.get(conv_key("conv_bwd_data", g, false, in_bf16), [&] {
    const Window& w = g.win;
    dnnl::convolution_backward_data::desc d(
        dnnl::algorithm::convolution_direct, channels_last_md(w, w.in, g.in_channels),
        any_weights_md(g, operand_type(in_bf16)), channels_last_md(w, w.out, g.out_channels, operand_type(in_bf16)),
        real_axes(w, w.stride), real_axes(w, w.dilation, 1), real_axes(w, w.pad_before), real_axes(w, w.pad_after));
    dnnl::convolution_backward_data::primitive_desc pd(d, own_scratchpad(), dnnl_engine(),
                                                       forward_primitive(without_relu(g), false, in_bf16).pd);
    return BackwardData{pd, dnnl::convolution_backward_data(pd),
                        reorder_between(user_weights_md(g), pd.weights_desc())};
  });
}

BackwardWeights& backward_weights_primitive(const ConvGeometry& g, bool bias, bool in_bf16) {
  static PrimitiveCache<BackwardWeights> cache;
  return cache.get(conv_key("conv_bwd_weights", g, bias, in_bf16), [&] {
    const Window& w = g.win;
    auto src = channels_last_md(w, w.in, g.in_channels, operand_type(in_bf16));
    auto dst = channels_last_md(w, w.out, g.out_channels, operand_type(in_bf16));
    // Under autocast the primitive writes the weight gradient in bf16, as libtorch's autocast
    // does, and it is widened to float32 by the reorder below: on AMX, oneDNN's kernel for a
    // float32 weight gradient is several times slower (docs/mixed_precision.md, "Autocast").
    auto weights = any_weights_md(g, operand_type(in_bf16));
    auto strides = real_axes(w, w.stride), dil = real_axes(w, w.dilation, 1);
    auto pl = real_axes(w, w.pad_before), pr = real_axes(w, w.pad_after);
    using D = dnnl::convolution_backward_weights::desc;
    const auto alg = dnnl::algorithm::convolution_direct;
    D d = bias ? D(alg, src, weights, memory::desc({g.out_channels}, f32, tag::a), dst, strides, dil, pl, pr)
               : D(alg, src, weights, dst, strides, dil, pl, pr);
    dnnl::convolution_backward_weights::primitive_desc pd(d, own_scratchpad(), dnnl_engine(),
                                                          forward_primitive(without_relu(g), bias, in_bf16).pd);
    return BackwardWeights{pd, dnnl::convolution_backward_weights(pd),
                           reorder_between(pd.diff_weights_desc(), user_weights_md(g))};
  });
}

memory wrap(const memory::desc& md, const Tensor& t) { return memory(md, dnnl_engine(), t.raw_data()); }

// The weights as the primitive wants them: ours in place, or reordered into a scratch memory.
memory primitive_weights(const std::optional<Reorder>& reorder, const memory::desc& want,
                         const ConvGeometry& g, const Tensor& w) {
  memory user = wrap(user_weights_md(g), w);
  if (!reorder) return user;
  memory m(want, dnnl_engine());
  reorder->run(user, m);
  return m;
}

}  // namespace

Tensor conv_forward(const Tensor& x_in, const Tensor& w_in, const Tensor& b_in, const ConvGeometry& g) {
  const bool in_bf16 = autocast_to_bf16(x_in);
  Tensor x = operand(x_in, in_bf16), w = dense(w_in), b = b_in.defined() ? dense(b_in) : b_in;
  Tensor y = Tensor::empty(g.win.activation_shape(g.win.out, g.out_channels), x_in.dtype(), x.device());
  if (x.dtype() == kFloat64) {
    conv_reference_forward<double>(g, x.data<double>(), w.data<double>(), b.defined() ? b.data<double>() : nullptr,
                                   y.data<double>());
    if (g.relu)
      for (double *p = y.data<double>(), *end = p + y.numel(); p != end; ++p) *p = *p > 0 ? *p : 0;
    return y;
  }
  x_in.check_dtype(kFloat32, "conv_forward");
  if (y.numel() == 0) return y;
  Forward& f = forward_primitive(g, b.defined(), in_bf16);
  memory weights = primitive_weights(f.weights_in, f.pd.weights_desc(), g, w);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(f.pd.src_desc(), x)},
                                       {DNNL_ARG_WEIGHTS, weights},
                                       {DNNL_ARG_DST, wrap(f.pd.dst_desc(), y)}};
  if (b.defined()) args.emplace(DNNL_ARG_BIAS, wrap(f.pd.bias_desc(), b));
  run_primitive(f.prim, f.pd, std::move(args));
  return y;
}

Tensor conv_backward_data(const Tensor& dy_in, const Tensor& w_in, const ConvGeometry& g) {
  const bool in_bf16 = autocast_to_bf16(dy_in);
  Tensor dy = dense(dy_in), w = dense(w_in);
  Tensor dx = Tensor::empty(g.win.activation_shape(g.win.in, g.in_channels), dy.dtype(), dy.device());
  if (dy.dtype() == kFloat64) {
    conv_reference_backward_data<double>(g, dy.data<double>(), w.data<double>(), dx.data<double>());
    return dx;
  }
  dy.check_dtype(kFloat32, "conv_backward_data");
  if (dx.numel() == 0) return dx;
  if (backward_data_runs_forward(g) && dy.numel() > 0)  // in bf16 too under autocast
    return conv_forward(dy, flipped_transposed_weights(w, g), Tensor(), backward_data_as_forward(g));
  BackwardData& p = backward_data_primitive(g, in_bf16);
  memory weights = primitive_weights(p.weights_in, p.pd.weights_desc(), g, w);
  run_primitive(p.prim, p.pd,
                {{DNNL_ARG_DIFF_DST, wrap(p.pd.diff_dst_desc(), operand(dy, in_bf16))},
                 {DNNL_ARG_WEIGHTS, weights},
                 {DNNL_ARG_DIFF_SRC, wrap(p.pd.diff_src_desc(), dx)}});
  return dx;
}

std::pair<Tensor, Tensor> conv_backward_weights(const Tensor& x_in, const Tensor& dy_in, const ConvGeometry& g,
                                                bool with_bias) {
  const bool in_bf16 = autocast_to_bf16(x_in);
  Tensor x = dense(x_in), dy = dense(dy_in);
  Tensor dw = Tensor::empty(g.weights_shape(), x.dtype(), x.device());
  Tensor db = with_bias ? Tensor::empty({g.out_channels}, x.dtype(), x.device()) : Tensor();
  if (x.dtype() == kFloat64) {
    conv_reference_backward_weights<double>(g, x.data<double>(), dy.data<double>(), dw.data<double>(),
                                            with_bias ? db.data<double>() : nullptr);
    return {dw, db};
  }
  x.check_dtype(kFloat32, "conv_backward_weights");
  if (dy.numel() == 0 || x.numel() == 0) {
    fill(dw, 0);
    if (with_bias) fill(db, 0);
    return {dw, db};
  }
  BackwardWeights& p = backward_weights_primitive(g, with_bias, in_bf16);
  memory user = wrap(user_weights_md(g), dw);
  memory diff_weights = p.weights_out ? memory(p.pd.diff_weights_desc(), dnnl_engine()) : user;
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(p.pd.src_desc(), operand(x, in_bf16))},
                                       {DNNL_ARG_DIFF_DST, wrap(p.pd.diff_dst_desc(), operand(dy, in_bf16))},
                                       {DNNL_ARG_DIFF_WEIGHTS, diff_weights}};
  if (with_bias) args.emplace(DNNL_ARG_DIFF_BIAS, wrap(p.pd.diff_bias_desc(), db));
  run_primitive(p.prim, p.pd, std::move(args));
  if (p.weights_out) p.weights_out->run(diff_weights, user);
  return {dw, db};
}

}  // namespace strata::kernels::cpu
