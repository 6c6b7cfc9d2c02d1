#include "kernels/cpu/bf16_round.hpp"

#include <immintrin.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/loops.hpp"
#include "strata/core/autocast_copies.hpp"
#include "strata/core/bfloat16.hpp"

namespace strata::kernels::cpu {
namespace {

void round_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bfloat16::round_bits(src[i]);
}

// bfloat16::round_bits on 16 lanes with AVX-512F integer arithmetic. Not AVX512_BF16's
// vcvtneps2bf16: that instruction flushes denormal inputs to zero, which round_bits does not.
// (The maskz shift and the masked store: GCC 12 warns about the unmasked forms' undefined
// pass-through operand.)
__attribute__((target("avx512f"))) inline void round16(__m512i u, uint16_t* dst) {
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
  const __m512i infinity = _mm512_set1_epi32(0x7f800000);
  const __m512i half_minus_one = _mm512_set1_epi32(0x7fff);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(0x00400000);  // bf16's quiet bit (0x40) before the shift
  const __mmask16 all = 0xffff;
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, magnitude), infinity);
  const __m512i lsb = _mm512_and_si512(_mm512_maskz_srli_epi32(all, u, 16), one);
  __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(half_minus_one, lsb));
  r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(u, quiet));
  _mm512_mask_cvtepi32_storeu_epi16(dst, all, _mm512_maskz_srli_epi32(all, r, 16));
}

__attribute__((target("avx512f"))) void round_avx512(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) round16(_mm512_loadu_si512(src + i), dst + i);
  round_scalar(src + i, dst + i, n - i);
}

// relu's backward (g where y > 0, else +0; a NaN y counts as not > 0), rounded, in one pass.
void relu_round_scalar(const float* g, const float* y, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bfloat16::round_bits(y[i] > 0 ? g[i] : 0.0f);
}

__attribute__((target("avx512f"))) void relu_round_avx512(const float* g, const float* y, uint16_t* dst, int64_t n) {
  const __m512 zero = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __mmask16 kept = _mm512_cmp_ps_mask(_mm512_loadu_ps(y + i), zero, _CMP_GT_OQ);
    round16(_mm512_maskz_mov_epi32(kept, _mm512_loadu_si512(g + i)), dst + i);
  }
  relu_round_scalar(g + i, y + i, dst + i, n - i);
}

bool has_avx512f() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

// One run on the calling thread.
void round_run(const float* src, uint16_t* dst, int64_t n) {
  if (has_avx512f())
    round_avx512(src, dst, n);
  else
    round_scalar(src, dst, n);
}

// Whether x's elements fill [raw_data(), raw_data() + numel) without gaps or overlaps.
bool fills_block(const Tensor& x) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the axes that are walked
  for (int d = 0; d < x.dim(); ++d)
    if (x.shape()[d] > 1) dims.emplace_back(x.strides()[d], x.shape()[d]);
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (auto [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

// A batch of column-major matrices [B, M, K], element (b, m, k) at b * sb + m + k * sk (a
// transposed matrix), rounded into row-major dst, in 32 x 32 tiles that stay in L1.
void round_column_major(const float* src, int64_t sb, int64_t sk, uint16_t* dst, int64_t B, int64_t M, int64_t K) {
  constexpr int64_t kTile = 32;
  const int64_t row_tiles = (M + kTile - 1) / kTile;
  parallel_for(B * row_tiles, std::max<int64_t>(1, (int64_t{1} << 16) / (kTile * K)), [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / row_tiles, m0 = t % row_tiles * kTile, m1 = std::min(m0 + kTile, M);
      const float* s = src + b * sb;
      uint16_t* d = dst + b * M * K;
      for (int64_t k0 = 0; k0 < K; k0 += kTile) {
        const int64_t k1 = std::min(k0 + kTile, K);
        for (int64_t m = m0; m < m1; ++m)
          for (int64_t k = k0; k < k1; ++k) d[m * K + k] = bfloat16::round_bits(s[m + k * sk]);
      }
    }
  });
}

}  // namespace

void round_to_bf16(const float* src, uint16_t* dst, int64_t n) {
  // Memory-bound: two threads pay off from a few hundred kilobytes.
  parallel_for(n, int64_t{1} << 16,
               [&](int64_t begin, int64_t end) { round_run(src + begin, dst + begin, end - begin); });
}

void relu_backward_to_bf16(const float* g, const float* y, uint16_t* dst, int64_t n) {
  parallel_for(n, int64_t{1} << 16, [&](int64_t begin, int64_t end) {
    if (has_avx512f())
      relu_round_avx512(g + begin, y + begin, dst + begin, end - begin);
    else
      relu_round_scalar(g + begin, y + begin, dst + begin, end - begin);
  });
}

Tensor bf16_copy(const Tensor& x, bool keep_strides) {
  x.check_dtype(kFloat32, "bf16_copy");
  if (x.numel() == 0) return dispatch::copy_as(x, kBFloat16);
  if (!x.is_contiguous() && !(keep_strides && fills_block(x))) {
    // Matrices stored transposed (rank 2, or 3 with a batch axis): a tiled transposing copy.
    const int r = x.dim();
    if ((r != 2 && r != 3) || x.strides()[r - 2] != 1) return dispatch::copy_as(x, kBFloat16);
    const Shape& n = x.shape();
    const int64_t batch = r == 3 ? n[0] : 1, batch_stride = batch == 1 ? 0 : x.strides()[0];
    Tensor out = Tensor::empty(n, kBFloat16, x.device());
    round_column_major(static_cast<const float*>(x.raw_data()), batch_stride, x.strides()[r - 1],
                       static_cast<uint16_t*>(out.raw_data()), batch, n[r - 2], n[r - 1]);
    return out;
  }
  const bool contiguous = x.is_contiguous();
  Tensor out = Tensor::empty(contiguous ? x.shape() : Shape{x.numel()}, kBFloat16, x.device());
  round_to_bf16(static_cast<const float*>(x.raw_data()), static_cast<uint16_t*>(out.raw_data()), x.numel());
  return contiguous ? out : out.as_strided(x.shape(), x.strides(), 0);
}

Tensor bf16_operand(const Tensor& x, bool keep_strides) {
  // Only a copy that keeps x's order is one a scope can hold and view again in another order.
  const bool keeps_order = x.numel() > 0 && (x.is_contiguous() || (keep_strides && fills_block(x)));
  if (!keeps_order) return bf16_copy(x, keep_strides);
  if (AutocastCopies::Copy* c = AutocastCopies::find(x)) {
    if (!c->bf16.defined()) {  // a relu pair: mask and round now
      STRATA_CHECK(x.is_contiguous() && c->relu_output.is_contiguous() && c->relu_output.numel() == x.numel(),
                   "bf16_operand: a relu pair of an AutocastCopies scope must be two contiguous tensors of one size");
      Tensor out = Tensor::empty(x.shape(), kBFloat16, x.device());
      relu_backward_to_bf16(static_cast<const float*>(x.raw_data()),
                            static_cast<const float*>(c->relu_output.raw_data()),
                            static_cast<uint16_t*>(out.raw_data()), x.numel());
      if (!AutocastCopies::enabled()) return out;
      c->bf16 = out;
    }
    return c->bf16.as_strided(x.shape(), x.strides(), c->bf16.offset());
  }
  Tensor out = bf16_copy(x, true);
  AutocastCopies::remember(x, out);
  return out;
}

}  // namespace strata::kernels::cpu
