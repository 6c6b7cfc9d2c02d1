// The vectorised float32 -> bf16 rounding (src/kernels/cpu/bf16_round.cpp) behind Tensor::to(kBFloat16)
// and autocast's operands: bit for bit what bfloat16::round_bits gives element by element (itself
// checked against an independent reference in test_bfloat16.cpp), on every path it takes: contiguous
// tensors of every length (the 16-lane body and the tail) and alignment, tensors large enough to be
// split over the threads, transposed matrices (a tiled copy), other strided views (the generic
// copy), and autocast matmul's operands, which keep a transposed weight's layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "strata/core/autocast.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// Specials (zeros, infinities, NaNs with payloads only in the dropped bits, denormals, ties at
// 1.0 and at the top of the range), then random patterns of every exponent and exact ties.
std::vector<float> bffr_patterns(int random_count) {
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
                                0x7f800001, 0xff80ffff, 0x00000001, 0x00008000, 0x00018000, 0x007fffff,
                                0x807f8000, 0x3f808000, 0x3f818000, 0x3f80ffff, 0x3f807fff, 0x7f7f8000,
                                0x7f7fffff, 0x7f7f7fff, 0xff7fffff, 0x00800000, 0x0080ffff};
  uint32_t s = 987654321u;
  for (int i = 0; i < random_count; ++i) {
    s = s * 1664525u + 1013904223u;
    bits.push_back(s);
    bits.push_back((s & 0xffff0000u) | 0x8000u);
  }
  std::vector<float> out;
  for (uint32_t b : bits) out.push_back(std::bit_cast<float>(b));
  return out;
}

// The bits of a bf16 tensor in row-major order, read through its strides.
std::vector<uint16_t> bffr_bits(const Tensor& h) {
  EXPECT_EQ(h.dtype(), kBFloat16);
  const Tensor c = h.contiguous();
  const auto* p = static_cast<const uint16_t*>(c.raw_data());
  return std::vector<uint16_t>(p, p + c.numel());
}

std::vector<uint16_t> bffr_expected(const std::vector<float>& row_major) {
  std::vector<uint16_t> out;
  for (float f : row_major) out.push_back(bfloat16::round_bits(f));
  return out;
}

TEST(Bf16FastRoundingTest, ContiguousCastsMatchTheScalarRoundingBitForBit) {
  const std::vector<float> values = bffr_patterns(150000);  // 300 023 values: split over threads
  const Tensor x = from_vector(values, {static_cast<int64_t>(values.size())});
  EXPECT_EQ(bffr_bits(x.to(kBFloat16)), bffr_expected(values));
  // Every length up to three vectors and every start (unaligned loads, tails of 0-15).
  for (int64_t start = 0; start < 17; ++start)
    for (int64_t length = 0; length <= 48; ++length) {
      const Tensor part = x.narrow(0, start, length);
      ASSERT_EQ(bffr_bits(part.to(kBFloat16)),
                bffr_expected(std::vector<float>(values.begin() + start, values.begin() + start + length)))
          << "start " << start << ", length " << length;
    }
}

TEST(Bf16FastRoundingTest, TransposedAndStridedCastsMatchTheScalarRounding) {
  const std::vector<float> values = bffr_patterns(20000);
  const Tensor x = from_vector(values, {static_cast<int64_t>(values.size())}).narrow(0, 0, 3 * 97 * 131);
  // A transposed matrix (the tiled copy), sizes not multiples of its 32 x 32 tiles.
  const Tensor m = x.reshape({291, 131}).transpose(0, 1);
  EXPECT_EQ(bffr_bits(m.to(kBFloat16)), bffr_expected(m.contiguous().to_vector<float>()));
  // A batch of transposed matrices.
  const Tensor b = x.reshape({3, 97, 131}).transpose(1, 2);
  EXPECT_EQ(bffr_bits(b.to(kBFloat16)), bffr_expected(b.contiguous().to_vector<float>()));
  // A strided view that is no matrix transpose (the generic copy).
  const Tensor every_other = x.reshape({3 * 97 * 131 / 3, 3}).select(1, 1);
  EXPECT_EQ(bffr_bits(every_other.to(kBFloat16)), bffr_expected(every_other.contiguous().to_vector<float>()));
}

// Under autocast, a transposed weight keeps its layout (oneDNN reads the bf16 copy transposed) and
// a transposed source is made row-major: both must give the product of the rounded operands.
TEST(Bf16FastRoundingTest, AutocastMatmulRoundsTransposedOperandsInPlace) {
  if (!cpu_has_native_bf16()) setenv("STRATA_BF16_EMULATE", "1", 0);
  if (!bf16_autocast_available()) GTEST_SKIP() << "no bf16 on this CPU, even emulated";
  Generator gen(3);
  const Tensor a = randn({37, 300}, {}, &gen), w = randn({53, 300}, {}, &gen), c = randn({37, 20}, {}, &gen);
  auto rounded = [](const Tensor& t) { return t.to(kBFloat16).to(kFloat32); };
  auto check = [](const Tensor& got, const Tensor& want) {
    ASSERT_EQ(got.dtype(), kFloat32);
    ASSERT_EQ(got.shape(), want.shape());
    const auto g = got.to_vector<double>(), v = want.to_vector<double>();
    double err = 0, scale = 0;
    for (size_t i = 0; i < g.size(); ++i)
      err = std::max(err, std::abs(g[i] - v[i])), scale = std::max(scale, std::abs(v[i]));
    EXPECT_LT(err, 1e-5 * scale);  // only the order of the float32 sums differs
  };
  const Tensor want_wt = matmul(rounded(a), rounded(w).transpose(0, 1));
  const Tensor want_at = matmul(rounded(a).transpose(0, 1), rounded(c));
  AutocastBF16 scope;
  ASSERT_TRUE(scope.active());
  check(matmul(a, w.transpose(0, 1)), want_wt);  // [37, 300] x [300, 53] read from w [53, 300]
  check(matmul(a.transpose(0, 1), c), want_at);  // [300, 37] x [37, 20]
}

}  // namespace
}  // namespace strata
