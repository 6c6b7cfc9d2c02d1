// bfloat16: the storage type of DType::bf16 — the upper 16 bits of an IEEE float32 (1 sign, 8 exponent,
// 7 mantissa bits). Arithmetic is done in float32: a bf16 value converts to float exactly, and a float
// converts to bf16 by rounding to nearest, ties to even, NaN kept a (quiet) NaN of the same sign.
#pragma once
#include <cstdint>
#include <cstring>

namespace strata {

struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) : bits(round_bits(f)) {}
  operator float() const {  // exact: bf16 is a truncated float32
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  static bfloat16 from_bits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  // Round to nearest even on the 16 dropped bits; a NaN keeps its sign and gets the quiet bit so that
  // dropping its low payload bits cannot turn it into an infinity.
  static uint16_t round_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
    const uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;  // overflow past the largest finite value rounds to infinity, as IEEE does
    return static_cast<uint16_t>(u >> 16);
  }
};

static_assert(sizeof(bfloat16) == 2, "bfloat16 must be two bytes: tensors store it densely");

}  // namespace strata
