// Losses: one thread per element for the pointwise losses and every gradient, one per row for
// the per-row parts (cross-entropy's logsumexp, a soft target's mass). A reduced loss adds its
// terms in double in two deterministic passes (sum_terms).
#include <limits>
#include <string>

#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/loss.hpp"
#include "strata/dispatch/pointwise_losses.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

using dispatch::PointwiseLoss;

namespace detail {

// BCE with logits for dispatch::with_pointwise_loss, on the standard library's exp.
template <class T>
struct BceWithLogitsLoss {
  STRATA_HD T value(T x, T t) const {
    const T ax = x < 0 ? -x : x;
    return (x > 0 ? x : T(0)) - x * t + std::log1p(std::exp(-ax));
  }
  STRATA_HD T dx(T x, T t) const { return T(1) / (T(1) + std::exp(-x)) - t; }
  STRATA_HD T dt(T x, T t) const { return -x; }
};

// The output gradient seen per item: g[i] when not reduced, g * scale for every item when it is.
template <class T>
struct LossGrad {
  const T* g;
  Indexer at;
  bool reduced;
  double scale;
  STRATA_HD T operator()(int64_t i) const {
    return reduced ? static_cast<T>(static_cast<double>(g[0]) * scale) : g[at(i)];
  }
};

// The sum over [0, n) of term(i) (a double) times `scale`, as a 0-d T tensor: `parts` threads
// each add every parts-th term, then one thread adds their sums in order, so the result does not
// depend on scheduling.
template <class T, class Term>
Tensor sum_terms(int64_t n, double scale, Device device, Term term) {
  const int64_t parts = std::min<int64_t>(n, 4096);
  Tensor partial = Tensor::empty(Shape{parts}, kFloat64, device);
  Tensor out = Tensor::empty(Shape{}, dtype_of<T>::value, device);
  double* pp = partial.data<double>();
  T* o = out.data<T>();
  for_each_index(parts, "loss partial sums", [=] STRATA_HD(int64_t p) {
    double s = 0;
    for (int64_t i = p; i < n; i += parts) s += term(i);
    pp[p] = s;
  });
  for_each_index(1, "loss sum", [=] STRATA_HD(int64_t) {
    double total = 0;
    for (int64_t p = 0; p < parts; ++p) total += pp[p];
    *o = static_cast<T>(total * scale);
  });
  return out;
}

template <class T>
Tensor sum_values(const Tensor& values, double scale) {
  const T* v = values.data<T>();
  return sum_terms<T>(values.numel(), scale, values.device(),
                      [=] STRATA_HD(int64_t i) { return static_cast<double>(v[i]); });
}

template <class T, class Loss>
Tensor pointwise_forward(const Tensor& x, const Tensor& t, Loss loss, bool reduced, double scale) {
  const T* xp = x.data<T>();
  const T* tp = t.data<T>();
  const Indexer xi = indexer_of(x), ti = indexer_of(t);
  if (reduced)
    return sum_terms<T>(x.numel(), scale, x.device(),
                        [=] STRATA_HD(int64_t i) { return static_cast<double>(loss.value(xp[xi(i)], tp[ti(i)])); });
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  T* o = out.data<T>();
  for_each_index(x.numel(), "pointwise_loss", [=] STRATA_HD(int64_t i) { o[i] = loss.value(xp[xi(i)], tp[ti(i)]); });
  return out;
}

template <class T, class Loss>
void pointwise_backward(const LossGrad<T>& gv, const Tensor& x, const Tensor& t, Loss loss, Tensor& gx, Tensor& gt) {
  const T* xp = x.data<T>();
  const T* tp = t.data<T>();
  const Indexer xi = indexer_of(x), ti = indexer_of(t);
  T* ox = gx.defined() ? gx.data<T>() : nullptr;
  T* ot = gt.defined() ? gt.data<T>() : nullptr;
  for_each_index(x.numel(), "pointwise_loss_backward", [=] STRATA_HD(int64_t i) {
    const T xv = xp[xi(i)], tv = tp[ti(i)], g = gv(i);
    if (ox) ox[i] = g * loss.dx(xv, tv);
    if (ot) ot[i] = g * loss.dt(xv, tv);
  });
}

template <class T>
STRATA_HD T row_logsumexp(const T* x, int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (m == std::numeric_limits<T>::infinity() || m == -std::numeric_limits<T>::infinity()) return m;
  T s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
  return m + std::log(s);
}

// Cross-entropy forward, one thread per row: probability targets t [rows, C].
template <class T>
void cross_entropy_rows_probs(const T* xp, const T* tp, T* lp, T* out, int64_t rows, int64_t C) {
  for_each_index(rows, "cross_entropy", [=] STRATA_HD(int64_t r) {
    const T *xr = xp + r * C, *tr = tp + r * C;
    const T l = row_logsumexp(xr, C);
    T s = 0;
    for (int64_t c = 0; c < C; ++c) s += tr[c] * (l - xr[c]);
    lp[r] = l;
    out[r] = s;
  });
}

// Cross-entropy forward, one thread per row: class ids [rows].
template <class T, class I>
void cross_entropy_rows_ids(const T* xp, const I* id, T* lp, T* out, int64_t rows, int64_t C) {
  for_each_index(rows, "cross_entropy", [=] STRATA_HD(int64_t r) {
    const T l = row_logsumexp(xp + r * C, C);
    lp[r] = l;
    out[r] = l - xp[r * C + id[r]];
  });
}

// dL/dlogits = g (softmax * mass - t) and dL/dt = g (lse - logits) for probability targets, one
// thread per element after a pass that sums each row's target mass.
template <class T>
void cross_entropy_grads_probs(const LossGrad<T>& gv, const T* xp, const T* tp, const T* lp, T* ox, T* ot, int64_t rows,
                         int64_t C, Device device) {
  Tensor mass_t = Tensor::empty(Shape{rows}, dtype_of<T>::value, device);
  T* mass = mass_t.data<T>();
  for_each_index(rows, "cross_entropy backward", [=] STRATA_HD(int64_t r) {
    T s = 0;
    for (int64_t c = 0; c < C; ++c) s += tp[r * C + c];
    mass[r] = s;
  });
  for_each_index(rows * C, "cross_entropy backward", [=] STRATA_HD(int64_t i) {
    const int64_t r = i / C;
    const T gr = gv(r);
    ox[i] = gr * (std::exp(xp[i] - lp[r]) * mass[r] - tp[i]);
    if (ot) ot[i] = gr * (lp[r] - xp[i]);
  });
}

// dL/dlogits = g (softmax - onehot(id)) for class ids, one thread per element.
template <class T, class I>
void cross_entropy_grads_ids(const LossGrad<T>& gv, const T* xp, const I* id, const T* lp, T* ox, int64_t C,
                         int64_t n) {
  for_each_index(n, "cross_entropy backward", [=] STRATA_HD(int64_t i) {
    const int64_t r = i / C;
    const T gr = gv(r);
    T v = gr * std::exp(xp[i] - lp[r]);
    if (i - r * C == id[r]) v -= gr;
    ox[i] = v;
  });
}

template <class T, class I>
Tensor nll_rows(const Tensor& x, const Tensor& ids, int64_t rows, int64_t C, bool reduced, double scale) {
  const T* xp = x.data<T>();
  const I* id = ids.data<I>();
  const Indexer xi = indexer_of(x), ii = indexer_of(ids);
  if (reduced)
    return sum_terms<T>(rows, scale, x.device(),
                        [=] STRATA_HD(int64_t r) { return -static_cast<double>(xp[xi(r * C + id[ii(r)])]); });
  Tensor out = Tensor::empty(Shape{rows}, x.dtype(), x.device());
  T* o = out.data<T>();
  for_each_index(rows, "nll_loss", [=] STRATA_HD(int64_t r) { o[r] = -xp[xi(r * C + id[ii(r)])]; });
  return out;
}

template <class T, class I>
void nll_grads(const LossGrad<T>& gv, const Tensor& ids, Tensor& gx, int64_t C) {
  const I* id = ids.data<I>();
  const Indexer ii = indexer_of(ids);
  T* o = gx.data<T>();
  for_each_index(gx.numel(), "nll_loss backward", [=] STRATA_HD(int64_t i) {
    const int64_t r = i / C;
    o[i] = i - r * C == id[ii(r)] ? -gv(r) : T(0);
  });
}

#ifdef __CUDACC__
// The first position of an id out of [0, classes) and that id into slot [position, id]. Launches on
// one stream run in order: once a check has filled the slot (slot[1] set), later checks leave it,
// so it holds the first failing check's first bad position and its id.
template <class I>
void check_ids_on_device(const I* id, int64_t n, int64_t classes, long long* slot) {
  for_each_index(n, "check_class_ids", [=] __device__(int64_t i) {
    if ((id[i] < 0 || id[i] >= classes) && slot[1] == kNoBadPosition) atomicMin(slot, static_cast<long long>(i));
  });
  for_each_index(1, "check_class_ids", [=] __device__(int64_t) {
    if (slot[1] == kNoBadPosition && slot[0] < n) slot[1] = static_cast<long long>(id[slot[0]]);
  });
}
#endif

}  // namespace detail

namespace {

// Calls fn(type_tag<I>{}) with I the type of int64 or int32 class ids.
template <class F>
decltype(auto) with_ids(const Tensor& ids, const char* op, F&& fn) {
  switch (ids.dtype()) {
    case DType::i64: return fn(type_tag<int64_t>{});
    case DType::i32: return fn(type_tag<int32_t>{});
    default: throw Error(std::string(op) + ": expected int64 or int32 class ids, got " + dtype_name(ids.dtype()));
  }
}

// `grad` in `dtype`, and the view of it the backward kernels take (kept alive by `holder`).
template <class T>
detail::LossGrad<T> loss_grad(const Tensor& grad, Tensor& holder, bool reduced, double scale) {
  holder = grad.dtype() == dtype_of<T>::value ? grad : cast(grad, dtype_of<T>::value);
  return {holder.data<T>(), indexer_of(holder), reduced, scale};
}

int64_t classes_of(const Tensor& t) { return t.dim() == 0 ? 1 : t.shape().back(); }

}  // namespace

Tensor pointwise_loss(PointwiseLoss kind, const Tensor& x, const Tensor& t, bool reduced, double scale,
                      double delta) {
  return dispatch::with_pointwise_loss<detail::BceWithLogitsLoss>(kind, x.dtype(), delta, [&](auto tag, auto loss) {
    return detail::pointwise_forward<typename decltype(tag)::type>(x, t, loss, reduced, scale);
  });
}

std::pair<Tensor, Tensor> pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad, const Tensor& x,
                                                  const Tensor& t, bool reduced, double scale, double delta,
                                                  bool want_x, bool want_t) {
  Tensor gx = want_x ? Tensor::empty(x.shape(), x.dtype(), x.device()) : Tensor();
  Tensor gt = want_t ? Tensor::empty(x.shape(), x.dtype(), x.device()) : Tensor();
  dispatch::with_pointwise_loss<detail::BceWithLogitsLoss>(kind, x.dtype(), delta, [&](auto tag, auto loss) {
    using T = typename decltype(tag)::type;
    Tensor g;
    detail::pointwise_backward<T>(loss_grad<T>(grad, g, reduced, scale), x, t, loss, gx, gt);
    return 0;
  });
  return {gx, gt};
}

// On a GPU the ids are checked where they are, without waiting: the first position out of range
// goes into a device slot that the next read from the device reports (runtime.hpp,
// raise_deferred_errors), in the CPU's words. The emulated device copies them to the host for
// the CPU's check at once.
void check_class_ids(const Tensor& ids_in, int64_t classes, const char* op) {
#ifdef __CUDACC__
  const Tensor ids = dense(ids_in);
  if (ids.numel() == 0) return;
  long long* slot = reinterpret_cast<long long*>(class_id_check_slot(op, classes));
  with_ids(ids, op, [&](auto id_tag) {
    using I = typename decltype(id_tag)::type;
    detail::check_ids_on_device<I>(ids.data<I>(), ids.numel(), classes, slot);
  });
#else
  dispatch::check_class_ids.get(DeviceType::CPU)(ids_in.to(kCPU), classes, op);
#endif
}

Tensor cross_entropy_forward(const Tensor& logits, const Tensor& targets, bool reduced, double scale, Tensor& lse) {
  Tensor x = dense(logits), tg = dense(targets);
  const int64_t C = classes_of(x), rows = C == 0 ? 0 : x.numel() / C;
  lse = Tensor::empty(Shape{rows}, x.dtype(), x.device());
  Tensor per_row = Tensor::empty(Shape{rows}, x.dtype(), x.device());
  return dispatch_floating(x.dtype(), "cross_entropy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (is_floating(tg.dtype())) {
      detail::cross_entropy_rows_probs<T>(x.data<T>(), tg.data<T>(), lse.data<T>(), per_row.data<T>(), rows, C);
    } else {
      with_ids(tg, "cross_entropy", [&](auto id_tag) {
        using I = typename decltype(id_tag)::type;
        detail::cross_entropy_rows_ids<T, I>(x.data<T>(), tg.data<I>(), lse.data<T>(), per_row.data<T>(), rows, C);
      });
    }
    return reduced ? detail::sum_values<T>(per_row, scale) : per_row;
  });
}

std::pair<Tensor, Tensor> cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                                                 const Tensor& lse, bool reduced, double scale, bool want_targets) {
  Tensor x = dense(logits), tg = dense(targets);
  const int64_t C = classes_of(x), rows = C == 0 ? 0 : x.numel() / C;
  const bool soft = is_floating(tg.dtype());
  Tensor gx = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor gt = soft && want_targets ? Tensor::empty(x.shape(), x.dtype(), x.device()) : Tensor();
  dispatch_floating(x.dtype(), "cross_entropy backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor g;
    const detail::LossGrad<T> gv = loss_grad<T>(grad, g, reduced, scale);
    if (soft) {
      detail::cross_entropy_grads_probs<T>(gv, x.data<T>(), tg.data<T>(), lse.data<T>(), gx.data<T>(),
                                     gt.defined() ? gt.data<T>() : nullptr, rows, C, x.device());
    } else {
      with_ids(tg, "cross_entropy", [&](auto id_tag) {
        using I = typename decltype(id_tag)::type;
        detail::cross_entropy_grads_ids<T, I>(gv, x.data<T>(), tg.data<I>(), lse.data<T>(), gx.data<T>(), C, x.numel());
      });
    }
  });
  return {gx, gt};
}

Tensor nll_forward(const Tensor& log_probs, const Tensor& ids, bool reduced, double scale) {
  const int64_t C = classes_of(log_probs), rows = C == 0 ? 0 : log_probs.numel() / C;
  return dispatch_floating(log_probs.dtype(), "nll_loss", [&](auto tag) {
    return with_ids(ids, "nll_loss", [&](auto id_tag) {
      return detail::nll_rows<typename decltype(tag)::type, typename decltype(id_tag)::type>(log_probs, ids, rows, C,
                                                                                              reduced, scale);
    });
  });
}

Tensor nll_backward(const Tensor& grad, const Tensor& ids, const Shape& shape, DType dtype, bool reduced,
                    double scale) {
  Tensor gx = Tensor::empty(shape, dtype, grad.device());
  const int64_t C = shape.size() == 0 ? 1 : shape.back();
  dispatch_floating(dtype, "nll_loss backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor g;
    const detail::LossGrad<T> gv = loss_grad<T>(grad, g, reduced, scale);
    with_ids(ids, "nll_loss",
             [&](auto id_tag) { detail::nll_grads<T, typename decltype(id_tag)::type>(gv, ids, gx, C); });
  });
  return gx;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
