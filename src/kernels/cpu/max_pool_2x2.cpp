#include "kernels/cpu/max_pool_2x2.hpp"

#include "kernels/cpu/loops.hpp"

namespace strata::kernels::cpu {
namespace {

// Pixels of whole output rows per parallel chunk: one row of the CNN's first pool is 14 pixels.
constexpr int64_t kRowGrain = 4;

struct Sizes {
  int64_t rows, out_w, in_w, c;  // rows: N * output height
};

Sizes sizes_of(const PoolGeometry& g) {
  return {g.win.batch * g.win.out[1], g.win.out[2], g.win.in[2], g.channels};
}

}  // namespace

bool is_tiling_max_pool_2x2(const PoolGeometry& g) {
  const Window& w = g.win;
  return g.max && w.nsp == 2 && w.kernel[1] == 2 && w.kernel[2] == 2 && w.stride[1] == 2 && w.stride[2] == 2 &&
         w.pad_before[1] == 0 && w.pad_before[2] == 0 && w.pad_after[1] == 0 && w.pad_after[2] == 0 &&
         w.in[1] == 2 * w.out[1] && w.in[2] == 2 * w.out[2];
}

namespace {

// One body for training (winners kept) and inference: the choice is made once per call, so
// the vector loop has no branch on it.
template <bool kWinners>
void forward_loops(const float* x, float* y, uint8_t* winner, const Sizes& s) {
  parallel_for(s.rows, kRowGrain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t ow = 0; ow < s.out_w; ++ow) {
        const float* p0 = x + (2 * r * s.in_w + 2 * ow) * s.c;  // input row 2*oh of image n
        const float* p1 = p0 + s.c;
        const float* p2 = p0 + s.in_w * s.c;
        const float* p3 = p2 + s.c;
        float* out = y + (r * s.out_w + ow) * s.c;
        uint8_t* win = kWinners ? winner + (r * s.out_w + ow) * s.c : nullptr;
#pragma omp simd
        for (int64_t c = 0; c < s.c; ++c) {
          float m = p0[c];
          uint8_t k = 0;
          if (p1[c] > m) m = p1[c], k = 1;
          if (p2[c] > m) m = p2[c], k = 2;
          if (p3[c] > m) m = p3[c], k = 3;
          out[c] = m;
          if constexpr (kWinners) win[c] = k;
        }
      }
  });
}

}  // namespace

void max_pool_2x2_forward(const float* x, float* y, uint8_t* winner, const PoolGeometry& g) {
  if (winner)
    forward_loops<true>(x, y, winner, sizes_of(g));
  else
    forward_loops<false>(x, y, nullptr, sizes_of(g));
}

void max_pool_2x2_backward(const float* dy, const uint8_t* winner, float* dx, const PoolGeometry& g) {
  const Sizes s = sizes_of(g);
  parallel_for(s.rows, kRowGrain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t ow = 0; ow < s.out_w; ++ow) {
        float* q0 = dx + (2 * r * s.in_w + 2 * ow) * s.c;
        float* q1 = q0 + s.c;
        float* q2 = q0 + s.in_w * s.c;
        float* q3 = q2 + s.c;
        const float* d = dy + (r * s.out_w + ow) * s.c;
        const uint8_t* win = winner + (r * s.out_w + ow) * s.c;
#pragma omp simd
        for (int64_t c = 0; c < s.c; ++c) {
          const float v = d[c];
          const uint8_t k = win[c];
          q0[c] = k == 0 ? v : 0.0f;
          q1[c] = k == 1 ? v : 0.0f;
          q2[c] = k == 2 ? v : 0.0f;
          q3[c] = k == 3 ? v : 0.0f;
        }
      }
  });
}

}  // namespace strata::kernels::cpu
