#include "kernels/cpu/loss_kernels.hpp"

#include <cmath>
#include <string>

#include "kernels/cpu/partial_sums.hpp"
#include "kernels/cpu/scalar_math.hpp"
#include "kernels/cpu/softmax_kernels.hpp"
#include "strata/dispatch/pointwise_losses.hpp"

namespace strata::kernels::cpu {
namespace {

// BCE with logits for dispatch::with_pointwise_loss, on the vectorisable exp and sigmoid.
template <class T>
struct BceWithLogits {
  T value(T x, T t) const {
    const T ax = x < 0 ? -x : x;
    return (x > 0 ? x : T(0)) - x * t + std::log1p(math::exp(-ax));
  }
  T dx(T x, T t) const { return math::sigmoid(x) - t; }
  T dt(T x, T t) const { return -x; }
};

Tensor scalar_of(double v, DType dtype, Device device) {
  Tensor out = Tensor::empty(Shape{}, dtype, device);
  fill(out, v);
  return out;
}

// The output gradient seen per item: g[i] when not reduced, g * scale for every item when it is.
template <class T>
struct GradView {
  const T* g = nullptr;
  T shared = 0;
  GradView(const Tensor& grad, bool reduced, double scale) {
    if (reduced) shared = static_cast<T>(grad.item_double() * scale);
    else g = grad.data<T>();
  }
  T operator[](int64_t i) const { return g ? g[i] : shared; }
};

template <class I>
void check_ids_typed(const I* id, int64_t n, int64_t classes, const char* op) {
  for (int64_t i = 0; i < n; ++i)
    STRATA_CHECK(id[i] >= 0 && id[i] < classes, op, ": target class id ", std::to_string(static_cast<int64_t>(id[i])),
                 " at position ", i, " is out of range [0, ", classes, ") for ", classes, " classes");
}

template <class F>
decltype(auto) dispatch_ids(const Tensor& ids, const char* op, F&& fn) {
  switch (ids.dtype()) {
    case DType::i64: return fn(ids.data<int64_t>());
    case DType::i32: return fn(ids.data<int32_t>());
    default: throw Error(std::string(op) + ": expected int64 or int32 class ids, got " + dtype_name(ids.dtype()));
  }
}

int64_t classes_of(const Tensor& t) { return t.dim() == 0 ? 1 : t.shape().back(); }

}  // namespace

Tensor pointwise_loss(PointwiseLoss kind, const Tensor& x_in, const Tensor& t_in, bool reduced, double scale,
                      double delta) {
  Tensor x = dense(x_in), t = dense(t_in);
  const int64_t n = x.numel();
  return dispatch::with_pointwise_loss<BceWithLogits>(kind, x.dtype(), delta, [&](auto tag, auto loss) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data<T>();
    const T* tp = t.data<T>();
    if (reduced) {
      double total = blocked_sum(n, 1, [&](int64_t b, int64_t e) {
        const T *x = xp + b, *t = tp + b;
        return chunked_sum<T>(e - b, [&](int64_t i) { return loss.value(x[i], t[i]); });
      });
      return scalar_of(total * scale, x.dtype(), x.device());
    }
    Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
    T* o = out.data<T>();
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = loss.value(xp[i], tp[i]);
    });
    return out;
  });
}

std::pair<Tensor, Tensor> pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad, const Tensor& x_in,
                                                  const Tensor& t_in, bool reduced, double scale, double delta,
                                                  bool want_x, bool want_t) {
  Tensor x = dense(x_in), t = dense(t_in);
  Tensor g = reduced ? grad : dense(grad.dtype() == x.dtype() ? grad : cast(grad, x.dtype()));
  Tensor gx = want_x ? Tensor::empty(x.shape(), x.dtype(), x.device()) : Tensor();
  Tensor gt = want_t ? Tensor::empty(x.shape(), x.dtype(), x.device()) : Tensor();
  dispatch::with_pointwise_loss<BceWithLogits>(kind, x.dtype(), delta, [&](auto tag, auto loss) {
    using T = typename decltype(tag)::type;
    const GradView<T> gv(g, reduced, scale);
    const T* xp = x.data<T>();
    const T* tp = t.data<T>();
    T* ox = want_x ? gx.data<T>() : nullptr;
    T* ot = want_t ? gt.data<T>() : nullptr;
    parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      if (ox) {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) ox[i] = gv[i] * loss.dx(xp[i], tp[i]);
      }
      if (ot) {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) ot[i] = gv[i] * loss.dt(xp[i], tp[i]);
      }
    });
    return 0;
  });
  return {gx, gt};
}

void check_class_ids(const Tensor& ids_in, int64_t classes, const char* op) {
  Tensor ids = dense(ids_in);
  dispatch_ids(ids, op, [&](auto* id) { check_ids_typed(id, ids.numel(), classes, op); });
}

Tensor cross_entropy_forward(const Tensor& logits_in, const Tensor& targets_in, bool reduced, double scale,
                             Tensor& lse) {
  Tensor x = dense(logits_in), tg = dense(targets_in);
  const int64_t C = classes_of(x), rows = C == 0 ? 0 : x.numel() / C;
  const bool soft = is_floating(tg.dtype());
  lse = Tensor::empty(Shape{rows}, x.dtype(), x.device());
  Tensor per_row = Tensor::empty(Shape{rows}, x.dtype(), x.device());
  dispatch_floating(x.dtype(), "cross_entropy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data<T>();
    T* lp = lse.data<T>();
    T* out = per_row.data<T>();
    auto each_row = [&](auto row_loss) {
      parallel_for(rows, std::max<int64_t>(kParallelGrain / std::max<int64_t>(C, 1), 1), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          lp[r] = row_logsumexp(xp + r * C, C);
          out[r] = row_loss(r, xp + r * C, lp[r]);
        }
      });
    };
    if (soft) {
      const T* tp = tg.data<T>();
      each_row([&](int64_t r, const T* xr, T l) {
        const T* tr = tp + r * C;
        T s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t c = 0; c < C; ++c) s += tr[c] * (l - xr[c]);
        return s;
      });
    } else {
      dispatch_ids(tg, "cross_entropy", [&](auto* id) {
        each_row([&](int64_t r, const T* xr, T l) { return l - xr[id[r]]; });
      });
    }
  });
  if (!reduced) return per_row;
  return dispatch_floating(x.dtype(), "cross_entropy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = per_row.data<T>();
    double total = blocked_sum(rows, C, [&](int64_t b, int64_t e) {
      double s = 0;
      for (int64_t r = b; r < e; ++r) s += p[r];
      return s;
    });
    return scalar_of(total * scale, x.dtype(), x.device());
  });
}

std::pair<Tensor, Tensor> cross_entropy_backward(const Tensor& grad, const Tensor& logits_in, const Tensor& targets_in,
                                                 const Tensor& lse, bool reduced, double scale, bool want_targets) {
  Tensor x = dense(logits_in), tg = dense(targets_in);
  Tensor g = reduced ? grad : dense(grad.dtype() == x.dtype() ? grad : cast(grad, x.dtype()));
  const int64_t C = classes_of(x), rows = C == 0 ? 0 : x.numel() / C;
  const bool soft = is_floating(tg.dtype());
  Tensor gx = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor gt = soft && want_targets ? Tensor::empty(x.shape(), x.dtype(), x.device()) : Tensor();
  dispatch_floating(x.dtype(), "cross_entropy backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const GradView<T> gv(g, reduced, scale);
    const T* xp = x.data<T>();
    const T* lp = lse.data<T>();
    T* ox = gx.data<T>();
    auto each_row = [&](auto row_grad) {
      parallel_for(rows, std::max<int64_t>(kParallelGrain / std::max<int64_t>(C, 1), 1), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) row_grad(r, gv[r], xp + r * C, lp[r], ox + r * C);
      });
    };
    if (soft) {
      const T* tp = tg.data<T>();
      T* ot = gt.defined() ? gt.data<T>() : nullptr;
      each_row([&](int64_t r, T gr, const T* xr, T l, T* o) {
        const T* tr = tp + r * C;
        T mass = 0;
#pragma omp simd reduction(+ : mass)
        for (int64_t c = 0; c < C; ++c) mass += tr[c];
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) o[c] = gr * (math::exp(xr[c] - l) * mass - tr[c]);
        if (ot) {
#pragma omp simd
          for (int64_t c = 0; c < C; ++c) ot[r * C + c] = gr * (l - xr[c]);
        }
      });
    } else {
      dispatch_ids(tg, "cross_entropy", [&](auto* id) {
        each_row([&](int64_t r, T gr, const T* xr, T l, T* o) {
#pragma omp simd
          for (int64_t c = 0; c < C; ++c) o[c] = gr * math::exp(xr[c] - l);
          o[id[r]] -= gr;
        });
      });
    }
  });
  return {gx, gt};
}

Tensor nll_forward(const Tensor& log_probs, const Tensor& ids_in, bool reduced, double scale) {
  Tensor x = dense(log_probs), ids = dense(ids_in);
  const int64_t C = classes_of(x), rows = C == 0 ? 0 : x.numel() / C;
  return dispatch_floating(x.dtype(), "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data<T>();
    return dispatch_ids(ids, "nll_loss", [&](auto* id) {
      if (reduced) {
        double total = blocked_sum(rows, 1, [&](int64_t b, int64_t e) {
          double s = 0;
          for (int64_t r = b; r < e; ++r) s -= xp[r * C + id[r]];
          return s;
        });
        return scalar_of(total * scale, x.dtype(), x.device());
      }
      Tensor out = Tensor::empty(Shape{rows}, x.dtype(), x.device());
      T* o = out.data<T>();
      parallel_for(rows, kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) o[r] = -xp[r * C + id[r]];
      });
      return out;
    });
  });
}

Tensor nll_backward(const Tensor& grad, const Tensor& ids_in, const Shape& shape, DType dtype, bool reduced,
                    double scale) {
  Tensor ids = dense(ids_in);
  Tensor g = reduced ? grad : dense(grad.dtype() == dtype ? grad : cast(grad, dtype));
  Tensor gx = Tensor::empty(shape, dtype, grad.device());
  fill(gx, 0.0);
  const int64_t C = shape.size() == 0 ? 1 : shape.back(), rows = C == 0 ? 0 : shape.numel() / C;
  dispatch_floating(dtype, "nll_loss backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const GradView<T> gv(g, reduced, scale);
    T* o = gx.data<T>();
    dispatch_ids(ids, "nll_loss", [&](auto* id) {
      parallel_for(rows, kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) o[r * C + id[r]] = -gv[r];
      });
    });
  });
  return gx;
}

}  // namespace strata::kernels::cpu
