// bfloat16 storage and casts (docs/mixed_precision.md): float32 -> bf16 against an independent
// rounding written with exact double arithmetic on the decoded bits (round to nearest, ties to
// even, NaN kept), bf16 -> float32 exact, and the tensor-level paths: to(), item, to_vector,
// printing, promotion.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "strata/strata.hpp"

namespace strata {
namespace {

// The exact value of a float32 bit pattern, decoded with integers (no float arithmetic, so the
// library's flush-denormals-to-zero mode cannot touch denormals).
double bf16t_exact(uint32_t bits) {
  const int exp = static_cast<int>((bits >> 23) & 0xff);
  const uint32_t man = bits & 0x7fffff;
  const double mag = exp == 0 ? std::ldexp(static_cast<double>(man), -149)
                              : std::ldexp(static_cast<double>(man | 0x800000u), exp - 150);
  return (bits >> 31) ? -mag : mag;
}

// The reference rounding: of the two bf16 patterns around `bits` (truncation and the next one
// away from zero), the nearer by exact value; a tie goes to the even pattern.
uint16_t bf16t_reference(uint32_t bits) {
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
  if (nan) return static_cast<uint16_t>((bits >> 16) | 0x40);
  const uint16_t down = static_cast<uint16_t>(bits >> 16);
  if ((bits & 0xffff) == 0) return down;
  const uint16_t up = static_cast<uint16_t>(down + 1);  // next magnitude (may be infinity)
  const double x = std::abs(bf16t_exact(bits));
  const double lo = std::abs(bf16t_exact(static_cast<uint32_t>(down) << 16));
  // The pattern above the largest finite bf16 is infinity; its "value" for the comparison is
  // where the next binade would start, as IEEE rounding defines overflow.
  const double hi =
      (up & 0x7fff) == 0x7f80 ? std::ldexp(1.0, 128) : std::abs(bf16t_exact(static_cast<uint32_t>(up) << 16));
  if (x - lo < hi - x) return down;
  if (x - lo > hi - x) return up;
  return (down & 1) ? up : down;
}

uint32_t bf16t_bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(BFloat16Test, RoundingMatchesAnIndependentReference) {
  std::vector<uint32_t> patterns = {
      0x00000000, 0x80000000,              // zeros
      0x7f800000, 0xff800000,              // infinities
      0x7fc00000, 0xffc00001, 0x7f800001,  // NaNs, one whose payload is only in the dropped bits
      0x00000001, 0x00008000, 0x00018000, 0x007fffff, 0x807f8000,  // denormals, ties among them
      0x3f808000, 0x3f818000, 0x3f80ffff, 0x3f807fff,              // 1.0 + ties to even (down, up) and near ties
      0x7f7f8000, 0x7f7fffff, 0x7f7f7fff,                          // at the top: ties and more round to infinity
      0x00800000, 0x0080ffff};                                     // smallest normal
  uint32_t s = 12345;
  for (int i = 0; i < 200000; ++i) {  // plus random patterns of every exponent
    s = s * 1664525u + 1013904223u;
    patterns.push_back(s);
    patterns.push_back((s & 0xffff0000u) | 0x8000u);  // exact ties
  }
  for (uint32_t p : patterns) {
    const float f = std::bit_cast<float>(p);
    const uint16_t got = bfloat16(f).bits;
    const uint16_t want = bf16t_reference(p);
    ASSERT_EQ(got, want) << std::hex << "pattern 0x" << p;
    // bf16 -> float32 is exact: the pattern shifted up.
    ASSERT_EQ(bf16t_bits(static_cast<float>(bfloat16::from_bits(got))), static_cast<uint32_t>(got) << 16);
  }
  EXPECT_EQ(bfloat16(std::bit_cast<float>(0x3f808000u)).bits, 0x3f80);  // tie, even below
  EXPECT_EQ(bfloat16(std::bit_cast<float>(0x3f818000u)).bits, 0x3f82);  // tie, even above
  EXPECT_EQ(bfloat16(std::bit_cast<float>(0x7f7fffffu)).bits, 0x7f80);  // FLT_MAX rounds to inf
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::bit_cast<float>(0x7f800001u)))));
}

TEST(BFloat16Test, TensorCastsRoundTripAndKeepSpecials) {
  const std::vector<float> values = {1.0f,      -2.5f, 3.14159265f, 1e-3f, 65504.0f,   INFINITY,
                                     -INFINITY, NAN,   0.0f,        -0.0f, 1.00390625f /* 1 + 2^-8: a tie */};
  const Tensor x = from_vector(values, {static_cast<int64_t>(values.size())});
  const Tensor h = x.to(kBFloat16);
  ASSERT_EQ(h.dtype(), kBFloat16);
  EXPECT_EQ(h.nbytes(), 2 * values.size());
  const auto* stored = static_cast<const uint16_t*>(h.raw_data());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(stored[i], bf16t_reference(bf16t_bits(values[i]))) << "element " << i;
  const std::vector<float> back = h.to(kFloat32).to_vector<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(back[i]));
    } else {
      EXPECT_EQ(bf16t_bits(back[i]), static_cast<uint32_t>(stored[i]) << 16) << "element " << i;
    }
  }
  EXPECT_EQ(h.to_vector<double>()[2], static_cast<double>(back[2]));  // to_vector reads bf16 directly
  EXPECT_EQ(h.to(kFloat64).to_vector<double>()[1], -2.5);
  // Integers through bf16: 257 is not representable (8 significant bits) and rounds to 256.
  EXPECT_EQ(from_vector<int64_t>({257, -3}, {2}).to(kBFloat16).to(kInt64).to_vector<int64_t>(),
            (std::vector<int64_t>{256, -3}));
  // A float64 rounds through float32 (as PyTorch's does).
  EXPECT_EQ(scalar_tensor(1.0 / 3.0, kFloat64).to(kBFloat16).item<float>(), static_cast<float>(bfloat16(1.0f / 3.0f)));
}

TEST(BFloat16Test, FactoriesItemPrintingAndPromotion) {
  EXPECT_EQ(itemsize(kBFloat16), 2u);
  EXPECT_STREQ(dtype_name(kBFloat16), "bfloat16");
  EXPECT_TRUE(is_floating(kBFloat16));
  EXPECT_EQ(promote(kBFloat16, kFloat32), kFloat32);
  EXPECT_EQ(promote(kInt64, kBFloat16), kBFloat16);
  EXPECT_EQ(promote(kBFloat16, kFloat64), kFloat64);
  const Tensor f = full({2, 3}, 0.1, kBFloat16);
  EXPECT_EQ(f.dtype(), kBFloat16);
  EXPECT_EQ(f.to_vector<float>(), std::vector<float>(6, static_cast<float>(bfloat16(0.1f))));
  EXPECT_EQ(arange(0, 3, 1, kBFloat16).to_vector<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(scalar_tensor(2.5, kBFloat16).item<double>(), 2.5);
  const std::string printed = full({2}, 1.5, kBFloat16).str();
  EXPECT_NE(printed.find("1.5000"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dtype=bfloat16"), std::string::npos) << printed;
}

}  // namespace
}  // namespace strata
