// The CPU's prepared training kernels (strata/dispatch/prepared_train.hpp): oneDNN convolutions
// made for training (forward_training, the activation as a post-op) with their backward-data and
// backward-weights primitives made with the forward as hint, matmuls for Dense (x·W, dz·Wᵀ and
// xᵀ·dz read the operands in place through transposed descriptors, no copies), and the 2x2 max
// pool's loops with their winners kept for the backward. The activation's backward is one pass
// over dy in place (the mask or derivative from the forward's output). Weight gradients are
// written in the layer's own layout, added to by a reorder or a matmul with a sum post-op when
// accumulating; the weights come at every call (the optimizer steps them in place) and are
// reordered into the convolution's layout only when it asks for another.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/conv_backward_as_forward.hpp"
#include "kernels/cpu/conv_weights_md.hpp"
#include "kernels/cpu/dnnl_window.hpp"
#include "kernels/cpu/loops.hpp"
#include "kernels/cpu/max_pool_2x2.hpp"
#include "kernels/cpu/thread_budget.hpp"
#include "strata/dispatch/prepared_train.hpp"

namespace strata::kernels::cpu::prepared_train {
namespace {

using dispatch::FusedActivation;
using dnnl::memory;
using ttag = memory::format_tag;
constexpr auto kTrainF32 = memory::data_type::f32;

float* floats_of(const Tensor& t) { return static_cast<float*>(t.raw_data()); }

dnnl::primitive_attr train_attr(FusedActivation act, bool sum = false) {
  dnnl::primitive_attr attr = own_scratchpad();
  dnnl::post_ops ops;
  if (sum) ops.append_sum(1.0f);
  if (act == FusedActivation::relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (act == FusedActivation::tanh) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f);
  if (act == FusedActivation::sigmoid) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f);
  if (sum || act != FusedActivation::none) attr.set_post_ops(ops);
  return attr;
}

// dy *= act'(.) in place, from the forward's output y: relu y > 0, tanh 1 - y², sigmoid y (1 - y).
void activation_backward(FusedActivation act, const float* y, float* dy, int64_t n) {
  if (act == FusedActivation::none) return;
  parallel_for(n, 1 << 14, [&](int64_t begin, int64_t end) {
    if (act == FusedActivation::relu) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) dy[i] = y[i] > 0.0f ? dy[i] : 0.0f;
    } else if (act == FusedActivation::tanh) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) dy[i] *= 1.0f - y[i] * y[i];
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) dy[i] *= y[i] * (1.0f - y[i]);
    }
  });
}

// to = from, or to += from, n floats.
void store(float* to, const float* from, int64_t n, bool accumulate) {
  if (!accumulate) {
    std::memcpy(to, from, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  for (int64_t i = 0; i < n; ++i) to[i] += from[i];
}

// One set of primitives per thread count (as prepared_kernels.cpp: oneDNN plans a primitive for
// the threads of its creation and the thread budget follows the machine's load).
template <class Set>
class PerThreads {
 public:
  explicit PerThreads(std::function<Set()> make) : make_(std::move(make)) {}
  Set& get() {
    const int threads = apply_thread_budget();
    for (auto& [t, s] : sets_)
      if (t == threads) return *s;
    sets_.emplace_back(threads, std::make_unique<Set>(make_()));
    return *sets_.back().second;
  }

 private:
  std::function<Set()> make_;
  std::vector<std::pair<int, std::unique_ptr<Set>>> sets_;
};

// A reorder between two weight layouts, made once; `sum`: adds to the destination.
struct Reorder {
  dnnl::reorder::primitive_desc pd;
  dnnl::reorder prim;
  Reorder(const memory::desc& from, const memory::desc& to, bool sum)
      : pd(dnnl_engine(), from, dnnl_engine(), to, train_attr(FusedActivation::none, sum)), prim(pd) {}
  void run(const memory& from, const memory& to) const {
    run_primitive(prim, pd, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
  }
};

// The backward-data part of a convolution, made at its first use (a first layer never needs
// it), on plain channels-last descriptors. Where it can (stride 1, no dilation, one group:
// conv_backward_as_forward.hpp), a forward convolution of dy with the weights flipped and
// transposed, as the eager backward-data pass runs (oneDNN's forward kernels are the faster);
// else oneDNN's backward-data primitive with a forward as hint.
struct ConvDataPart {
  dnnl::primitive prim;
  dnnl::primitive_desc_base pd;
  memory::desc dy_md, dx_md;
  int dy_arg = DNNL_ARG_DIFF_DST, dx_arg = DNNL_ARG_DIFF_SRC;
  memory::desc user;               // the weights it starts from: the layer's, or flipped
  std::vector<float> flipped;      // as a forward: the weights flipped and transposed (else empty)
  std::optional<Reorder> to_data;  // `user` into its layout
  memory data_w;
};

struct ConvSet {
  dnnl::convolution_forward::primitive_desc fwd_pd;
  dnnl::convolution_forward fwd;
  dnnl::convolution_backward_weights::primitive_desc weights_pd;
  dnnl::convolution_backward_weights weights;
  std::optional<Reorder> to_fwd;  // the user's weights into the forward's layout
  Reorder grad_set, grad_add;     // the weight gradient into the user's layout
  memory fwd_w, diff_w;           // owned where a reorder fills them
  std::vector<float> diff_b;
  std::optional<ConvDataPart> data;
};

// A convolution's channels-last input and output under the tags oneDNN has its faster kernels
// for where the bytes are the same: one input channel as plain nchw, 16 output channels in 2-D
// as nChw16c (the `make run` CNN's first layer, one thread: forward 0.44 ms against brgconv's
// 0.87 ms on nhwc, backward-weights 0.44 against 0.64). Used only where oneDNN then has a
// kernel other than its reference one.
memory::desc conv_input_md(const Window& win, int64_t channels) {
  const memory::desc plain = channels_last_md(win, win.in, channels);
  if (channels != 1) return plain;
  return memory::desc(plain.dims(), kTrainF32, win.nsp == 1 ? ttag::ncw : win.nsp == 2 ? ttag::nchw : ttag::ncdhw);
}
memory::desc conv_output_md(const Window& win, int64_t channels) {
  const memory::desc plain = channels_last_md(win, win.out, channels);
  if (channels == 16 && win.nsp == 2) return memory::desc(plain.dims(), kTrainF32, ttag::nChw16c);
  return plain;
}

// The convolution of g's geometry, its descriptor for forward training (bias or not).
struct ConvDescs {
  dnnl::convolution_forward::desc fwd;
  dnnl::convolution_backward_weights::desc weights;
  dnnl::convolution_backward_data::desc data;
};
ConvDescs conv_descs(const dispatch::ConvGeometry& g, bool bias, const memory::desc& user, const memory::desc& src,
                     const memory::desc& dst) {
  const Window& win = g.win;
  const memory::desc any_w(user.dims(), kTrainF32, ttag::any), bias_md({g.out_channels}, kTrainF32, ttag::a);
  const auto strides = real_axes(win, win.stride), dil = real_axes(win, win.dilation, 1);
  const auto pl = real_axes(win, win.pad_before), pr = real_axes(win, win.pad_after);
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto prop = dnnl::prop_kind::forward_training;
  using F = dnnl::convolution_forward;
  using W = dnnl::convolution_backward_weights;
  return {bias ? F::desc(prop, alg, src, any_w, bias_md, dst, strides, dil, pl, pr)
               : F::desc(prop, alg, src, any_w, dst, strides, dil, pl, pr),
          bias ? W::desc(alg, src, any_w, bias_md, dst, strides, dil, pl, pr)
               : W::desc(alg, src, any_w, dst, strides, dil, pl, pr),
          dnnl::convolution_backward_data::desc(alg, src, any_w, dst, strides, dil, pl, pr)};
}

// The forward and backward-weights primitives of a convolution from `src` to `dst`
// (channels-last bytes), its weights in the layouts they pick, with the reorders from and to the
// user's layout.
ConvSet make_conv_set(const dispatch::ConvGeometry& g, bool bias, FusedActivation act, const memory::desc& user,
                      const memory::desc& src, const memory::desc& dst) {
  const ConvDescs d = conv_descs(g, bias, user, src, dst);
  dnnl::convolution_forward::primitive_desc fpd(d.fwd, train_attr(act), dnnl_engine());
  dnnl::convolution_backward_weights::primitive_desc wpd(d.weights, own_scratchpad(), dnnl_engine(), fpd);
  ConvSet s{fpd,
            dnnl::convolution_forward(fpd),
            wpd,
            dnnl::convolution_backward_weights(wpd),
            std::nullopt,
            Reorder(wpd.diff_weights_desc(), user, false),
            Reorder(wpd.diff_weights_desc(), user, true),
            memory(fpd.weights_desc(), dnnl_engine()),
            memory(wpd.diff_weights_desc(), dnnl_engine()),
            std::vector<float>(bias ? g.out_channels : 0),
            std::nullopt};
  if (fpd.weights_desc() != user) s.to_fwd.emplace(user, fpd.weights_desc(), false);
  return s;
}

ConvDataPart make_conv_data(const dispatch::ConvGeometry& g, bool bias, const memory::desc& user) {
  const auto plain = [](const dispatch::ConvGeometry& c, bool b, const memory::desc& u) {
    return conv_descs(c, b, u, channels_last_md(c.win, c.win.in, c.in_channels),
                      channels_last_md(c.win, c.win.out, c.out_channels));
  };
  ConvDataPart part;
  if (backward_data_runs_forward(g)) {
    const dispatch::ConvGeometry t = backward_data_as_forward(g);
    part.user = user_weights_md(t);
    const dnnl::convolution_forward::primitive_desc pd(plain(t, false, part.user).fwd, own_scratchpad(), dnnl_engine());
    part.prim = dnnl::convolution_forward(pd);
    part.pd = pd;
    part.dy_md = pd.src_desc();
    part.dx_md = pd.dst_desc();
    part.dy_arg = DNNL_ARG_SRC;
    part.dx_arg = DNNL_ARG_DST;
    part.flipped.resize(static_cast<size_t>(user.get_size() / sizeof(float)));
  } else {
    const ConvDescs d = plain(g, bias, user);
    const dnnl::convolution_forward::primitive_desc hint(d.fwd, own_scratchpad(), dnnl_engine());
    const dnnl::convolution_backward_data::primitive_desc pd(d.data, own_scratchpad(), dnnl_engine(), hint);
    part.prim = dnnl::convolution_backward_data(pd);
    part.pd = pd;
    part.dy_md = pd.diff_dst_desc();
    part.dx_md = pd.diff_src_desc();
    part.user = user;
  }
  const memory::desc wanted = part.pd.weights_desc();
  part.data_w = memory(wanted, dnnl_engine());
  if (wanted != part.user) part.to_data.emplace(part.user, wanted, false);
  return part;
}

class ConvTrain final : public dispatch::PreparedTrainKernel {
 public:
  ConvTrain(const dispatch::ConvGeometry& g, bool bias, FusedActivation act, bool act_backward)
      : g_(g),
        act_(act_backward ? act : FusedActivation::none),
        bias_(bias),
        user_w_(user_weights_md(g)),
        sets_([g, bias, act, user = user_w_] {
          ConvSet s = make_conv_set(g, bias, act, user, conv_input_md(g.win, g.in_channels),
                                    conv_output_md(g.win, g.out_channels));
          const auto reference = [](const dnnl::primitive_desc_base& pd) {
            return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
          };
          if (reference(s.fwd_pd) || reference(s.weights_pd))
            s = make_conv_set(g, bias, act, user, channels_last_md(g.win, g.win.in, g.in_channels),
                              channels_last_md(g.win, g.win.out, g.out_channels));
          return s;
        }) {
    sets_.get();
  }

  void forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y) override {
    ConvSet& s = sets_.get();
    const memory user_w(user_w_, dnnl_engine(), w.raw_data());
    memory fw = user_w;
    if (s.to_fwd) {
      s.to_fwd->run(user_w, s.fwd_w);
      fw = s.fwd_w;
    }
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(s.fwd_pd.src_desc(), dnnl_engine(), x.raw_data())},
                                         {DNNL_ARG_WEIGHTS, fw},
                                         {DNNL_ARG_DST, memory(s.fwd_pd.dst_desc(), dnnl_engine(), y.raw_data())}};
    if (bias_) args[DNNL_ARG_BIAS] = memory(s.fwd_pd.bias_desc(), dnnl_engine(), b.raw_data());
    run_primitive(s.fwd, s.fwd_pd, args);
  }

  void backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& w, const Tensor& dx, const Tensor& dw,
                const Tensor& db, bool add_dw, bool add_db) override {
    ConvSet& s = sets_.get();
    activation_backward(act_, floats_of(y), floats_of(dy), dy.numel());
    const memory diff_dst(s.weights_pd.diff_dst_desc(), dnnl_engine(), dy.raw_data());
    if (dw.defined() || db.defined()) {
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(s.weights_pd.src_desc(), dnnl_engine(), x.raw_data())},
                                           {DNNL_ARG_DIFF_DST, diff_dst},
                                           {DNNL_ARG_DIFF_WEIGHTS, s.diff_w}};
      if (bias_) args[DNNL_ARG_DIFF_BIAS] = memory(s.weights_pd.diff_bias_desc(), dnnl_engine(), s.diff_b.data());
      run_primitive(s.weights, s.weights_pd, args);
      if (dw.defined()) (add_dw ? s.grad_add : s.grad_set).run(s.diff_w, memory(user_w_, dnnl_engine(), dw.raw_data()));
      if (db.defined() && bias_) store(floats_of(db), s.diff_b.data(), static_cast<int64_t>(s.diff_b.size()), add_db);
    }
    if (dx.defined()) {
      if (!s.data) s.data.emplace(make_conv_data(g_, bias_, user_w_));
      ConvDataPart& d = *s.data;
      void* weights = w.raw_data();
      if (!d.flipped.empty()) {
        flip_transpose_weights(floats_of(w), g_, d.flipped.data());
        weights = d.flipped.data();
      }
      const memory user_w(d.user, dnnl_engine(), weights);
      memory dw_in = user_w;
      if (d.to_data) {
        d.to_data->run(user_w, d.data_w);
        dw_in = d.data_w;
      }
      run_primitive(d.prim, d.pd,
                    {{d.dy_arg, memory(d.dy_md, dnnl_engine(), dy.raw_data())},
                     {DNNL_ARG_WEIGHTS, dw_in},
                     {d.dx_arg, memory(d.dx_md, dnnl_engine(), dx.raw_data())}});
    }
  }

 private:
  dispatch::ConvGeometry g_;
  FusedActivation act_;
  bool bias_;
  memory::desc user_w_;
  PerThreads<ConvSet> sets_;
};

// Dense: y = act(x W + b); dW (+)= xᵀ dz, dx = dz Wᵀ, db (+)= the column sums of dz.
struct LinearSet {
  dnnl::matmul::primitive_desc fwd_pd, dw_set_pd, dw_add_pd, dx_pd;
  dnnl::matmul fwd, dw_set, dw_add, dx;
};

class LinearTrain final : public dispatch::PreparedTrainKernel {
 public:
  LinearTrain(int64_t rows, int64_t in, int64_t out, bool bias, FusedActivation act, bool act_backward)
      : rows_(rows),
        in_(in),
        out_(out),
        bias_(bias),
        act_(act),
        act_backward_(act_backward ? act : FusedActivation::none),
        x_({rows, in}, kTrainF32, ttag::ab),
        xt_({in, rows}, kTrainF32, ttag::ba),
        w_({in, out}, kTrainF32, ttag::ab),
        wt_({out, in}, kTrainF32, ttag::ba),
        y_({rows, out}, kTrainF32, ttag::ab),
        b_({1, out}, kTrainF32, ttag::ab),
        sets_([this] {
          using M = dnnl::matmul;
          const M::desc fd = bias_ ? M::desc(x_, w_, b_, y_) : M::desc(x_, w_, y_);
          M::primitive_desc fpd(fd, train_attr(act_), dnnl_engine());
          M::primitive_desc set_pd(M::desc(xt_, y_, w_), train_attr(FusedActivation::none), dnnl_engine());
          M::primitive_desc add_pd(M::desc(xt_, y_, w_), train_attr(FusedActivation::none, true), dnnl_engine());
          M::primitive_desc dx_pd(M::desc(y_, wt_, x_), train_attr(FusedActivation::none), dnnl_engine());
          return LinearSet{fpd, set_pd, add_pd, dx_pd, M(fpd), M(set_pd), M(add_pd), M(dx_pd)};
        }) {
    sets_.get();
  }

  void forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y) override {
    LinearSet& s = sets_.get();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(x_, dnnl_engine(), x.raw_data())},
                                         {DNNL_ARG_WEIGHTS, memory(w_, dnnl_engine(), w.raw_data())},
                                         {DNNL_ARG_DST, memory(y_, dnnl_engine(), y.raw_data())}};
    if (bias_) args[DNNL_ARG_BIAS] = memory(b_, dnnl_engine(), b.raw_data());
    run_primitive(s.fwd, s.fwd_pd, args);
  }

  void backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& w, const Tensor& dx, const Tensor& dw,
                const Tensor& db, bool add_dw, bool add_db) override {
    LinearSet& s = sets_.get();
    float* dz = floats_of(dy);
    activation_backward(act_backward_, floats_of(y), dz, dy.numel());
    const memory dz_mem(y_, dnnl_engine(), dz);
    if (dw.defined())
      run_primitive(add_dw ? s.dw_add : s.dw_set, add_dw ? s.dw_add_pd : s.dw_set_pd,
                    {{DNNL_ARG_SRC, memory(xt_, dnnl_engine(), x.raw_data())},
                     {DNNL_ARG_WEIGHTS, dz_mem},
                     {DNNL_ARG_DST, memory(w_, dnnl_engine(), dw.raw_data())}});
    if (db.defined()) {
      float* g = floats_of(db);
      if (!add_db) std::fill(g, g + out_, 0.0f);
      for (int64_t r = 0; r < rows_; ++r) {
        const float* row = dz + r * out_;
#pragma omp simd
        for (int64_t o = 0; o < out_; ++o) g[o] += row[o];
      }
    }
    if (dx.defined())
      run_primitive(s.dx, s.dx_pd,
                    {{DNNL_ARG_SRC, dz_mem},
                     {DNNL_ARG_WEIGHTS, memory(wt_, dnnl_engine(), w.raw_data())},
                     {DNNL_ARG_DST, memory(x_, dnnl_engine(), dx.raw_data())}});
  }

 private:
  int64_t rows_, in_, out_;
  bool bias_;
  FusedActivation act_, act_backward_;
  memory::desc x_, xt_, w_, wt_, y_, b_;
  PerThreads<LinearSet> sets_;
};

// The 2x2 max pool's forward keeping its winners, 16 channels a vector (c a multiple of 16):
// max_pool_2x2_forward's results (the first of equal maxima; a NaN wins only in the first
// position, as the ordered comparisons with it are false), for rows [begin, end).
__attribute__((target("avx512f"))) void pool_rows_avx512(const float* x, float* y, uint8_t* winner, int64_t out_w,
                                                         int64_t in_w, int64_t c, int64_t begin, int64_t end) {
  for (int64_t r = begin; r < end; ++r)
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const float* p0 = x + (2 * r * in_w + 2 * ow) * c;
      const float* p[3] = {p0 + c, p0 + in_w * c, p0 + in_w * c + c};
      const int64_t at = (r * out_w + ow) * c;
      for (int64_t k = 0; k < c; k += 16) {
        __m512 m = _mm512_loadu_ps(p0 + k);
        __m512i won = _mm512_setzero_si512();
        for (int j = 0; j < 3; ++j) {
          const __m512 v = _mm512_loadu_ps(p[j] + k);
          const __mmask16 more = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ);
          m = _mm512_mask_mov_ps(m, more, v);
          won = _mm512_mask_mov_epi32(won, more, _mm512_set1_epi32(j + 1));
        }
        _mm512_storeu_ps(y + at + k, m);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(winner + at + k), _mm512_cvtepi32_epi8(won));
      }
    }
}

void max_pool_2x2_winners(const float* x, float* y, uint8_t* winner, const dispatch::PoolGeometry& g) {
  const int64_t rows = g.win.batch * g.win.out[1], out_w = g.win.out[2], in_w = g.win.in[2], c = g.channels;
  static const bool avx512f = __builtin_cpu_supports("avx512f");
  if (!avx512f || c % 16 != 0) {
    max_pool_2x2_forward(x, y, winner, g);
    return;
  }
  parallel_for(rows, 4,
               [&](int64_t begin, int64_t end) { pool_rows_avx512(x, y, winner, out_w, in_w, c, begin, end); });
}

// The 2x2 max pool's backward with the relu before it: each input gets dy of its output if it
// won and the output (the winner's relu output) is > 0, else 0 — relu_backward(pool_backward(dy)).
// Rows [begin, end) of N * output height; 16 channels a vector (c a multiple of 16), dx written
// with streaming stores when 64-byte aligned (it is read only by the next op, as in
// max_pool_2x2_backward).
__attribute__((target("avx512f"))) void relu_pool_rows_avx512(const float* dy, const float* y, const uint8_t* winner,
                                                              float* dx, int64_t out_w, int64_t in_w, int64_t c,
                                                              int64_t begin, int64_t end, bool stream) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t r = begin; r < end; ++r)
    for (int64_t ow = 0; ow < out_w; ++ow) {
      float* q[4];
      q[0] = dx + (2 * r * in_w + 2 * ow) * c;
      q[1] = q[0] + c;
      q[2] = q[0] + in_w * c;
      q[3] = q[2] + c;
      const int64_t at = (r * out_w + ow) * c;
      for (int64_t k = 0; k < c; k += 16) {
        const __m512 out = _mm512_loadu_ps(y + at + k);
        const __m512 v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(out, zero, _CMP_GT_OQ), _mm512_loadu_ps(dy + at + k));
        const __m512i won = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(winner + at + k)));
        for (int j = 0; j < 4; ++j) {
          const __m512 g = _mm512_mask_mov_ps(zero, _mm512_cmpeq_epi32_mask(won, _mm512_set1_epi32(j)), v);
          if (stream)
            _mm512_stream_ps(q[j] + k, g);
          else
            _mm512_storeu_ps(q[j] + k, g);
        }
      }
    }
  if (stream) _mm_sfence();
}

void max_pool_2x2_relu_backward(const float* dy, const float* y, const uint8_t* winner, float* dx,
                                const dispatch::PoolGeometry& g) {
  const int64_t rows = g.win.batch * g.win.out[1], out_w = g.win.out[2], in_w = g.win.in[2], c = g.channels;
  static const bool avx512f = __builtin_cpu_supports("avx512f");
  if (avx512f && c % 16 == 0) {
    const bool stream = reinterpret_cast<uintptr_t>(dx) % 64 == 0 && 16 * rows * out_w * c >= (int64_t{1} << 20);
    parallel_for(rows, 4, [&](int64_t begin, int64_t end) {
      relu_pool_rows_avx512(dy, y, winner, dx, out_w, in_w, c, begin, end, stream);
    });
    return;
  }
  parallel_for(rows, 4, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t ow = 0; ow < out_w; ++ow) {
        float* q0 = dx + (2 * r * in_w + 2 * ow) * c;
        float* q1 = q0 + c;
        float* q2 = q0 + in_w * c;
        float* q3 = q2 + c;
        const int64_t at = (r * out_w + ow) * c;
        for (int64_t k = 0; k < c; ++k) {
          const float v = y[at + k] > 0.0f ? dy[at + k] : 0.0f;
          const uint8_t won = winner[at + k];
          q0[k] = won == 0 ? v : 0.0f;
          q1[k] = won == 1 ? v : 0.0f;
          q2[k] = won == 2 ? v : 0.0f;
          q3[k] = won == 3 ? v : 0.0f;
        }
      }
  });
}

// The 2x2 max pool that tiles its input (max_pool_2x2.hpp), its winners kept for the backward.
class MaxPool2x2Train final : public dispatch::PreparedTrainKernel {
 public:
  MaxPool2x2Train(const dispatch::PoolGeometry& g, bool relu_before)
      : g_(g),
        relu_before_(relu_before),
        winners_(static_cast<size_t>(g.win.batch * g.win.out[1] * g.win.out[2] * g.channels)) {}
  void forward(const Tensor& x, const Tensor&, const Tensor&, const Tensor& y) override {
    max_pool_2x2_winners(floats_of(x), floats_of(y), winners_.data(), g_);
  }
  void backward(const Tensor&, const Tensor& y, const Tensor& dy, const Tensor&, const Tensor& dx, const Tensor&,
                const Tensor&, bool, bool) override {
    if (!dx.defined()) return;
    if (relu_before_)
      max_pool_2x2_relu_backward(floats_of(dy), floats_of(y), winners_.data(), floats_of(dx), g_);
    else
      max_pool_2x2_backward(floats_of(dy), winners_.data(), floats_of(dx), g_);
  }

 private:
  dispatch::PoolGeometry g_;
  bool relu_before_;
  std::vector<uint8_t> winners_;
};

// Other pools: oneDNN's pooling for training (max keeps its workspace, averages exclude the
// padding, as the eager pools) and its backward made with the forward as hint; with relu_before,
// the relu's backward after it, from the pool's input.
struct PoolSet {
  dnnl::pooling_forward::primitive_desc fwd_pd;
  dnnl::pooling_forward fwd;
  dnnl::pooling_backward::primitive_desc bwd_pd;
  dnnl::pooling_backward bwd;
  memory workspace;  // max: the forward's winners (none for averages)
};

class PoolTrain final : public dispatch::PreparedTrainKernel {
 public:
  PoolTrain(const dispatch::PoolGeometry& g, bool relu_before)
      : relu_before_(relu_before), sets_([g] {
          const Window& win = g.win;
          const memory::desc src = channels_last_md(win, win.in, g.channels),
                             dst = channels_last_md(win, win.out, g.channels);
          const auto alg = g.max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
          const auto strides = real_axes(win, win.stride), kernel = real_axes(win, win.kernel);
          const auto pl = real_axes(win, win.pad_before), pr = real_axes(win, win.pad_after);
          dnnl::pooling_forward::primitive_desc fpd(
              dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, alg, src, dst, strides, kernel, pl, pr),
              own_scratchpad(), dnnl_engine());
          dnnl::pooling_backward::primitive_desc bpd(
              dnnl::pooling_backward::desc(alg, src, dst, strides, kernel, pl, pr), own_scratchpad(), dnnl_engine(),
              fpd);
          return PoolSet{fpd, dnnl::pooling_forward(fpd), bpd, dnnl::pooling_backward(bpd),
                         memory(fpd.workspace_desc(), dnnl_engine())};
        }) {
    sets_.get();
  }
  void forward(const Tensor& x, const Tensor&, const Tensor&, const Tensor& y) override {
    PoolSet& s = sets_.get();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(s.fwd_pd.src_desc(), dnnl_engine(), x.raw_data())},
                                         {DNNL_ARG_DST, memory(s.fwd_pd.dst_desc(), dnnl_engine(), y.raw_data())}};
    if (s.workspace.get_desc().get_size() > 0) args[DNNL_ARG_WORKSPACE] = s.workspace;
    run_primitive(s.fwd, s.fwd_pd, args);
  }
  void backward(const Tensor& x, const Tensor&, const Tensor& dy, const Tensor&, const Tensor& dx, const Tensor&,
                const Tensor&, bool, bool) override {
    if (!dx.defined()) return;
    PoolSet& s = sets_.get();
    std::unordered_map<int, memory> args{
        {DNNL_ARG_DIFF_DST, memory(s.bwd_pd.diff_dst_desc(), dnnl_engine(), dy.raw_data())},
        {DNNL_ARG_DIFF_SRC, memory(s.bwd_pd.diff_src_desc(), dnnl_engine(), dx.raw_data())}};
    if (s.workspace.get_desc().get_size() > 0) args[DNNL_ARG_WORKSPACE] = s.workspace;
    run_primitive(s.bwd, s.bwd_pd, args);
    if (relu_before_) activation_backward(FusedActivation::relu, floats_of(x), floats_of(dx), dx.numel());
  }

 private:
  bool relu_before_;
  PerThreads<PoolSet> sets_;
};

std::unique_ptr<dispatch::PreparedTrainKernel> prepare_conv_train(const dispatch::ConvGeometry& g, bool bias,
                                                                  FusedActivation act, bool act_backward) {
  return std::make_unique<ConvTrain>(g, bias, act, act_backward);
}
std::unique_ptr<dispatch::PreparedTrainKernel> prepare_linear_train(int64_t rows, int64_t in, int64_t out, bool bias,
                                                                    FusedActivation act, bool act_backward) {
  return std::make_unique<LinearTrain>(rows, in, out, bias, act, act_backward);
}
std::unique_ptr<dispatch::PreparedTrainKernel> prepare_pool_train(const dispatch::PoolGeometry& g, bool relu_before) {
  if (is_tiling_max_pool_2x2(g)) return std::make_unique<MaxPool2x2Train>(g, relu_before);
  return std::make_unique<PoolTrain>(g, relu_before);
}

[[maybe_unused]] const bool train_kernels_registered = [] {
  dispatch::prepare_conv_train.set(DeviceType::CPU, &prepare_conv_train);
  dispatch::prepare_linear_train.set(DeviceType::CPU, &prepare_linear_train);
  dispatch::prepare_pool_train.set(DeviceType::CPU, &prepare_pool_train);
  return true;
}();

}  // namespace
}  // namespace strata::kernels::cpu::prepared_train
