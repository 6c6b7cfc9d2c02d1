#include "kernels/cpu/dropout_kernels.hpp"

#include "kernels/cpu/partial_sums.hpp"

namespace strata::kernels::cpu {
namespace {

// MurmurHash3's finaliser: a bijection on 32 bits with full avalanche, in 32-bit integer
// operations that AVX2 vectorises.
inline uint32_t mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

template <class T>
[[gnu::noinline]] void mask_run(const T* x, T* y, int64_t n, uint32_t lo0, uint32_t k0, uint32_t k_hi,
                                uint32_t threshold, T scale) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t h = mix32(mix32((lo0 + static_cast<uint32_t>(j)) ^ k0) + k_hi);
    y[j] = x[j] * (h >= threshold ? scale : T(0));
  }
}

}  // namespace

Tensor dropout_apply(const Tensor& x_in, double p, uint64_t seed) {
  Tensor x = dense(x_in);
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  const uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  const double cut = p * 4294967296.0;
  const uint32_t threshold = cut >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(cut);
  dispatch_floating(x.dtype(), "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T scale = static_cast<T>(1.0 / (1.0 - p));
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    parallel_for(x.numel(), kParallelGrain, [=](int64_t b, int64_t e) {
      // The hash is of the low word of i keyed by k0, then of the high word keyed by k1, so
      // each run below has one high word.
      while (b < e) {
        const uint64_t hi = static_cast<uint64_t>(b) >> 32;
        const int64_t stop = std::min<int64_t>(e, static_cast<int64_t>((hi + 1) << 32));
        mask_run(xp + b, yp + b, stop - b, static_cast<uint32_t>(b), k0, static_cast<uint32_t>(hi) * 0x9e3779b9u + k1,
                 threshold, scale);
        b = stop;
      }
    });
  });
  return y;
}

}  // namespace strata::kernels::cpu
