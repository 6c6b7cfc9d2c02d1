// The pointwise losses' formulas (dispatch::PointwiseLoss): each loss's value and its derivatives
// in x and t for one element, written once for every backend. constexpr, so that CUDA device code
// may call them (nvcc's relaxed constexpr) and vectorising CPU loops inline them. BCE with logits
// needs exp, which each backend computes its own way (the CPU a vectorisable approximation), so
// each passes its own to with_pointwise_loss.
#pragma once
#include "strata/dispatch/loss.hpp"

namespace strata::dispatch {

template <class T>
struct MseLoss {
  constexpr T value(T x, T t) const { return (x - t) * (x - t); }
  constexpr T dx(T x, T t) const { return T(2) * (x - t); }
  constexpr T dt(T x, T t) const { return T(2) * (t - x); }
};
template <class T>
struct L1Loss {
  static constexpr T sign(T v) { return T((v > 0) - (v < 0)); }  // 0 at 0, as PyTorch's subgradient
  constexpr T value(T x, T t) const { return x > t ? x - t : t - x; }
  constexpr T dx(T x, T t) const { return sign(x - t); }
  constexpr T dt(T x, T t) const { return sign(t - x); }
};
template <class T>
struct HuberLoss {
  T delta;
  constexpr T value(T x, T t) const {
    const T d = x - t, ad = d < 0 ? -d : d;
    return ad <= delta ? T(0.5) * d * d : delta * (ad - T(0.5) * delta);
  }
  constexpr T dx(T x, T t) const {
    const T d = x - t;
    return d > delta ? delta : (d < -delta ? -delta : d);
  }
  constexpr T dt(T x, T t) const { return -dx(x, t); }
};

// fn(type_tag<T>{}, loss) with `loss` the formulas of `kind` for x's float dtype, BCE with logits
// being the backend's BceWithLogits<T>.
template <template <class> class BceWithLogits, class F>
decltype(auto) with_pointwise_loss(PointwiseLoss kind, DType dtype, double delta, F&& fn) {
  return dispatch_floating(dtype, "loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (kind) {
      case PointwiseLoss::mse: return fn(tag, MseLoss<T>{});
      case PointwiseLoss::l1: return fn(tag, L1Loss<T>{});
      case PointwiseLoss::huber: return fn(tag, HuberLoss<T>{T(delta)});
      case PointwiseLoss::bce_with_logits: break;
    }
    return fn(tag, BceWithLogits<T>{});
  });
}

}  // namespace strata::dispatch
