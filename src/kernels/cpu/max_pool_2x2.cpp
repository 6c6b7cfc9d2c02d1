#include "kernels/cpu/max_pool_2x2.hpp"

#include <immintrin.h>

#include <cstdint>

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

namespace {

// Output pixel (r, ow) of the backward pass: its gradient and winners, and its window's four
// input pixels in dx (row 2*oh: left, right; row 2*oh + 1: left, right).
struct BackwardWindow {
  float* q[4];
  const float* d;
  const uint8_t* win;
};
BackwardWindow backward_window(const float* dy, const uint8_t* winner, float* dx, const Sizes& s, int64_t r,
                               int64_t ow) {
  float* q0 = dx + (2 * r * s.in_w + 2 * ow) * s.c;
  float* q2 = q0 + s.in_w * s.c;
  const int64_t out = (r * s.out_w + ow) * s.c;
  return {{q0, q0 + s.c, q2, q2 + s.c}, dy + out, winner + out};
}

// The backward pass's rows [begin, end) with streaming stores (16 channels a store, dx 64-byte
// aligned, c a multiple of 16): dx is written whole and read only by the next op, so its lines
// need not be read into the cache first. On the tutorial CNN's first pool (dx 128x28x28x32,
// 12.8 MB) 0.7-0.9 ms against 1.0-1.6 ms with plain stores (docs/benchmarks.md, bf16 section).
__attribute__((target("avx512f"))) void backward_rows_streaming(const float* dy, const uint8_t* winner, float* dx,
                                                                const Sizes& s, int64_t begin, int64_t end) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t r = begin; r < end; ++r)
    for (int64_t ow = 0; ow < s.out_w; ++ow) {
      const BackwardWindow p = backward_window(dy, winner, dx, s, r, ow);
      for (int64_t c = 0; c < s.c; c += 16) {
        const __m512 v = _mm512_loadu_ps(p.d + c);
        const __m512i k = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p.win + c)));
        for (int j = 0; j < 4; ++j)
          _mm512_stream_ps(p.q[j] + c, _mm512_mask_mov_ps(zero, _mm512_cmpeq_epi32_mask(k, _mm512_set1_epi32(j)), v));
      }
    }
  _mm_sfence();  // the streamed lines are visible to the threads that read dx next
}

// From 1 MiB of dx; smaller ones stay in the cache for the next op.
bool streams(const float* dx, const Sizes& s) {
  static const bool avx512f = __builtin_cpu_supports("avx512f");
  const int64_t dx_bytes = 4 * s.rows * s.out_w * s.c * int64_t{sizeof(float)};
  return avx512f && s.c % 16 == 0 && reinterpret_cast<uintptr_t>(dx) % 64 == 0 && dx_bytes >= (int64_t{1} << 20);
}

}  // namespace

void max_pool_2x2_backward(const float* dy, const uint8_t* winner, float* dx, const PoolGeometry& g) {
  const Sizes s = sizes_of(g);
  if (streams(dx, s)) {
    parallel_for(s.rows, kRowGrain,
                 [&](int64_t begin, int64_t end) { backward_rows_streaming(dy, winner, dx, s, begin, end); });
    return;
  }
  parallel_for(s.rows, kRowGrain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t ow = 0; ow < s.out_w; ++ow) {
        const BackwardWindow p = backward_window(dy, winner, dx, s, r, ow);
        float *q0 = p.q[0], *q1 = p.q[1], *q2 = p.q[2], *q3 = p.q[3];
        const float* d = p.d;
        const uint8_t* win = p.win;
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
