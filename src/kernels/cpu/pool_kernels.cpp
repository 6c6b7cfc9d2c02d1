#include "kernels/cpu/pool_kernels.hpp"

#include "kernels/cpu/dnnl_window.hpp"
#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/max_pool_2x2.hpp"
#include "kernels/cpu/pool_reference.hpp"

namespace strata::kernels::cpu {

namespace {

// The winning positions of a max-pool forward: oneDNN's record, or for the 2x2 loops
// (max_pool_2x2.hpp) a uint8 per output. Both empty for average pooling.
struct CpuPoolWorkspace : PoolWorkspace {
  dnnl::memory memory;
  Tensor winners;
};

using dnnl::memory;

std::string pool_key(const char* name, const PoolGeometry& g) {
  return window_key(name, g.win) + key_of("", g.channels, g.max);
}

dnnl::algorithm algorithm_of(const PoolGeometry& g) {
  return g.max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
}

struct Forward {
  dnnl::pooling_forward::primitive_desc pd;
  dnnl::pooling_forward prim;
};

struct Backward {
  dnnl::pooling_backward::primitive_desc pd;
  dnnl::pooling_backward prim;
};

// Training forwards keep a workspace for the backward; inference ones skip writing it.
Forward& forward_primitive(const PoolGeometry& g, bool training) {
  static PrimitiveCache<Forward> cache;
  return cache.get(pool_key(training ? "pool_fwd_train" : "pool_fwd_infer", g), [&] {
    const Window& w = g.win;
    dnnl::pooling_forward::desc d(
        training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, algorithm_of(g),
        channels_last_md(w, w.in, g.channels), channels_last_md(w, w.out, g.channels), real_axes(w, w.stride),
        real_axes(w, w.kernel), real_axes(w, w.pad_before), real_axes(w, w.pad_after));
    dnnl::pooling_forward::primitive_desc pd(d, own_scratchpad(), dnnl_engine());
    return Forward{pd, dnnl::pooling_forward(pd)};
  });
}

Backward& backward_primitive(const PoolGeometry& g) {
  static PrimitiveCache<Backward> cache;
  return cache.get(pool_key("pool_bwd", g), [&] {
    const Window& w = g.win;
    dnnl::pooling_backward::desc d(algorithm_of(g), channels_last_md(w, w.in, g.channels),
                                   channels_last_md(w, w.out, g.channels), real_axes(w, w.stride),
                                   real_axes(w, w.kernel), real_axes(w, w.pad_before), real_axes(w, w.pad_after));
    dnnl::pooling_backward::primitive_desc pd(d, own_scratchpad(), dnnl_engine(), forward_primitive(g, true).pd);
    return Backward{pd, dnnl::pooling_backward(pd)};
  });
}

memory wrap(const memory::desc& md, const Tensor& t) { return memory(md, dnnl_engine(), t.raw_data()); }

}  // namespace

Tensor pool_forward(const Tensor& x_in, const PoolGeometry& g, std::shared_ptr<PoolWorkspace>* workspace) {
  Tensor x = dense(x_in);
  Tensor y = Tensor::empty(g.win.activation_shape(g.win.out, g.channels), x.dtype(), x.device());
  if (x.dtype() == kFloat64) {
    pool_reference_forward<double>(g, x.data<double>(), y.data<double>());
    return y;
  }
  x.check_dtype(kFloat32, "pool_forward");
  if (y.numel() == 0) return y;
  const bool training = workspace != nullptr;
  if (is_tiling_max_pool_2x2(g)) {
    uint8_t* winners = nullptr;
    if (training) {
      auto w = std::make_shared<CpuPoolWorkspace>();
      w->winners = Tensor::empty(y.shape(), kUInt8, y.device());
      winners = w->winners.data<uint8_t>();
      *workspace = std::move(w);
    }
    max_pool_2x2_forward(x.data<float>(), y.data<float>(), winners, g);
    return y;
  }
  Forward& f = forward_primitive(g, training);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(f.pd.src_desc(), x)},
                                       {DNNL_ARG_DST, wrap(f.pd.dst_desc(), y)}};
  if (training) {
    auto w = std::make_shared<CpuPoolWorkspace>();
    if (f.pd.workspace_desc().get_size() > 0) {
      w->memory = memory(f.pd.workspace_desc(), dnnl_engine());
      args.emplace(DNNL_ARG_WORKSPACE, w->memory);
    }
    *workspace = std::move(w);
  }
  run_primitive(f.prim, f.pd, std::move(args));
  return y;
}

Tensor pool_backward(const Tensor& dy_in, const Tensor& x_in, const PoolGeometry& g,
                     const std::shared_ptr<PoolWorkspace>& workspace) {
  Tensor dy = dense(dy_in);
  Tensor dx = Tensor::empty(g.win.activation_shape(g.win.in, g.channels), dy.dtype(), dy.device());
  if (dy.dtype() == kFloat64) {
    Tensor x = dense(x_in);
    pool_reference_backward<double>(g, x.data<double>(), dy.data<double>(), dx.data<double>());
    return dx;
  }
  dy.check_dtype(kFloat32, "pool_backward");
  if (dx.numel() == 0) return dx;
  if (dy.numel() == 0) {
    fill(dx, 0);
    return dx;
  }
  // This backend's forward made the workspace.
  const auto* saved = static_cast<const CpuPoolWorkspace*>(workspace.get());
  if (saved && saved->winners.defined()) {
    max_pool_2x2_backward(dy.data<float>(), saved->winners.data<uint8_t>(), dx.data<float>(), g);
    return dx;
  }
  Backward& b = backward_primitive(g);
  std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, wrap(b.pd.diff_dst_desc(), dy)},
                                       {DNNL_ARG_DIFF_SRC, wrap(b.pd.diff_src_desc(), dx)}};
  if (saved && saved->memory) args.emplace(DNNL_ARG_WORKSPACE, saved->memory);
  run_primitive(b.prim, b.pd, std::move(args));
  return dx;
}

}  // namespace strata::kernels::cpu
