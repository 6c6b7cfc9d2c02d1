// Dropout and the Adam step: one thread per element. Dropout's mask is dispatch::dropout_hash of
// (element index, seed), as on the CPU, so both backends drop the same elements for a seed.
#include <algorithm>
#include <cmath>

#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/training.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

using dispatch::AdamStep;

namespace detail {

template <class T>
void dropout_typed(const Tensor& x, Tensor& y, uint64_t seed, uint32_t threshold, T scale) {
  const T* xp = x.data<T>();
  T* yp = y.data<T>();
  const Indexer xi = indexer_of(x);
  for_each_index(x.numel(), "dropout", [=] STRATA_HD(int64_t i) {
    const uint32_t h = dispatch::dropout_hash(static_cast<uint64_t>(i), seed);
    yp[i] = xp[xi(i)] * (h >= threshold ? scale : T(0));
  });
}

// The CPU's adam_range, element by element: the same operations in the same order.
template <class T>
void adam_typed(T* p, const T* g, T* m, T* v, T* vmax, int64_t n, const AdamStep& s) {
  const T b1c = T(1 - s.beta1), b2 = T(s.beta2), b2c = T(1 - s.beta2), eps = T(s.eps), l2 = T(s.l2),
          decay = T(s.decay), step_size = T(s.step_size), bc2 = T(s.bias_correction2_sqrt);
  for_each_index(n, "adam_step", [=] STRATA_HD(int64_t i) {
    const T pi = p[i] * decay;
    const T gi = g[i] + l2 * pi;
    const T mi = m[i] + b1c * (gi - m[i]);  // lerp, as PyTorch
    T vi = b2 * v[i] + b2c * gi * gi;
    m[i] = mi;
    v[i] = vi;
    if (vmax) {
      vi = std::max(vmax[i], vi);
      vmax[i] = vi;
    }
    p[i] = pi - step_size * (mi / (std::sqrt(vi) / bc2 + eps));
  });
}

}  // namespace detail

Tensor dropout_apply(const Tensor& x, double p, uint64_t seed) {
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  const uint32_t threshold = dispatch::dropout_threshold(p);
  dispatch_floating(x.dtype(), "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::dropout_typed<T>(x, y, seed, threshold, static_cast<T>(1.0 / (1.0 - p)));
  });
  return y;
}

void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, Tensor* vmax, const AdamStep& s) {
  dispatch_floating(p.dtype(), "adam", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::adam_typed<T>(p.data<T>(), g.data<T>(), m.data<T>(), v.data<T>(), vmax ? vmax->data<T>() : nullptr,
                          p.numel(), s);
  });
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
