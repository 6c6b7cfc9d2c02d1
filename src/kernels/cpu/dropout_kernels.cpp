#include "kernels/cpu/dropout_kernels.hpp"

#include "kernels/cpu/partial_sums.hpp"
#include "strata/dispatch/dropout.hpp"

namespace strata::kernels::cpu {
namespace {

template <class T>
[[gnu::noinline]] void mask_run(const T* x, T* y, int64_t n, uint32_t lo0, uint32_t k0, uint32_t k_hi,
                                uint32_t threshold, T scale) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    // dispatch::dropout_hash with the high word's key hoisted out of the loop.
    const uint32_t low = dispatch::dropout_mix32((lo0 + static_cast<uint32_t>(j)) ^ k0);
    const uint32_t h = dispatch::dropout_mix32(low + k_hi);
    y[j] = x[j] * (h >= threshold ? scale : T(0));
  }
}

}  // namespace

Tensor dropout_apply(const Tensor& x_in, double p, uint64_t seed) {
  Tensor x = dense(x_in);
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  const uint32_t k0 = static_cast<uint32_t>(seed);
  const uint32_t threshold = dispatch::dropout_threshold(p);
  dispatch_floating(x.dtype(), "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T scale = static_cast<T>(1.0 / (1.0 - p));
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    parallel_for(x.numel(), kParallelGrain, [=](int64_t b, int64_t e) {
      // Each run below has one high word, so one high key.
      while (b < e) {
        const uint64_t hi = static_cast<uint64_t>(b) >> 32;
        const int64_t stop = std::min<int64_t>(e, static_cast<int64_t>((hi + 1) << 32));
        mask_run(xp + b, yp + b, stop - b, static_cast<uint32_t>(b), k0,
                 dispatch::dropout_high_key(static_cast<uint64_t>(b), seed), threshold, scale);
        b = stop;
      }
    });
  });
  return y;
}

}  // namespace strata::kernels::cpu
