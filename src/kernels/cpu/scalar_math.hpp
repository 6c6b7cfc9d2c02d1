// Scalar math written so that GCC vectorises loops that call it (no libm calls on the float
// path): exp by Cody-Waite reduction and the Cephes polynomial (about 1 ulp), and the
// activations built on it. float64 uses libm: it serves gradient checks, not speed.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace strata::kernels::cpu::math {

// Forced: a loop vectorises only if these are inlined into it, and with dozens of call sites
// GCC's inliner would otherwise keep them out of line.
#define STRATA_VECTOR_INLINE inline __attribute__((always_inline))

STRATA_VECTOR_INLINE float exp(float x) {
  const float hi = 88.3762626647949f, lo = -87.3365478515625f;
  // Clamped so that NaN becomes hi: a NaN reaching the int cast below is undefined behaviour
  // (UBSan), though the result is replaced by x at the end either way.
  float xc = x < hi ? x : hi;
  xc = xc > lo ? xc : lo;
  // Round to nearest by the 1.5 * 2^23 trick: vectorises without SSE4.1's roundps.
  float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  float r2 = r * r;
  float p = 1.9875691500E-4f;
  p = p * r + 1.3981999507E-3f;
  p = p * r + 8.3334519073E-3f;
  p = p * r + 4.1665795894E-2f;
  p = p * r + 1.6666665459E-1f;
  p = p * r + 5.0000001201E-1f;
  p = p * r2 + r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  float y = p * scale;
  y = x > hi ? INFINITY : y;
  y = x < lo ? 0.0f : y;
  return x != x ? x : y;
}
STRATA_VECTOR_INLINE double exp(double x) { return std::exp(x); }

STRATA_VECTOR_INLINE float tanh(float x) {
  float ax = x < 0 ? -x : x;
  float t = math::exp(-2.0f * ax);
  float big = (1.0f - t) / (1.0f + t);
  float x2 = x * x;  // odd Taylor series where 1 - t would cancel
  float small = ax * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315))));
  float y = ax < 0.0625f ? small : big;
  return x < 0 ? -y : y;
}
STRATA_VECTOR_INLINE double tanh(double x) { return std::tanh(x); }

template <class T>
STRATA_VECTOR_INLINE T sigmoid(T x) {
  return T(1) / (T(1) + math::exp(-x));
}

// log(1 + u) for 0 <= u < 2^126 (softplus's range), vectorisable where std::log1p is a libm
// call: Cephes' logf polynomial on w = 1 + u (a normal float, so its exponent and mantissa are
// its bits), times Goldberg's correction u / (w - 1) for the rounding of 1 + u when u is small.
STRATA_VECTOR_INLINE float log1p_nonnegative(float u) {
  const float w = 1.0f + u;
  int32_t bits;
  std::memcpy(&bits, &w, 4);
  float e = static_cast<float>(((bits >> 23) & 0xff) - 126);
  bits = (bits & 0x807fffff) | 0x3f000000;
  float m;  // w = m 2^e, m in [0.5, 1)
  std::memcpy(&m, &bits, 4);
  const bool below = m < 0.707106781186547524f;
  e = below ? e - 1.0f : e;
  const float x = below ? m + m - 1.0f : m - 1.0f;
  const float z = x * x;
  float p = 7.0376836292E-2f;
  p = p * x - 1.1514610310E-1f;
  p = p * x + 1.1676998740E-1f;
  p = p * x - 1.2420140846E-1f;
  p = p * x + 1.4249322787E-1f;
  p = p * x - 1.6668057665E-1f;
  p = p * x + 2.0000714765E-1f;
  p = p * x - 2.4999993993E-1f;
  p = p * x + 3.3333331174E-1f;
  const float log_w = x + (p * x * z - 2.12194440e-4f * e - 0.5f * z) + 0.693359375f * e;
  const float d = w - 1.0f;
  return d == 0.0f ? u : log_w * (u / d);
}
STRATA_VECTOR_INLINE double log1p_nonnegative(double u) { return std::log1p(u); }

template <class T>
STRATA_VECTOR_INLINE T softplus(T x) {  // log(1 + e^x) without overflow
  return x > T(20) ? x : math::log1p_nonnegative(math::exp(x));
}

}  // namespace strata::kernels::cpu::math
