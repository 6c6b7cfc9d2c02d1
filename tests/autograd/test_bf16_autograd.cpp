// Ops and autograd on bfloat16 tensors (docs/mixed_precision.md). bf16 is computed in float32 and
// rounded once, so each result must equal, bit for bit, the float32 op on the rounded inputs
// rounded to bf16; the gradient of a cast is the cast back.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/autograd/gradcheck.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// What a bf16 op must give: the float32 op on the bf16 values, rounded to bf16.
std::vector<uint16_t> bf16a_rounded_bits(const Tensor& f32) {
  std::vector<uint16_t> out;
  for (float v : f32.to_vector<float>()) out.push_back(bfloat16(v).bits);
  return out;
}
std::vector<uint16_t> bf16a_bits(const Tensor& h) {
  EXPECT_EQ(h.dtype(), kBFloat16);
  const Tensor c = h.contiguous();
  const auto* p = static_cast<const uint16_t*>(c.raw_data());
  return std::vector<uint16_t>(p, p + c.numel());
}

TEST(BFloat16OpsTest, ElementwiseReductionsAndMatmulRoundTheFloat32Result) {
  Generator gen(7);
  const Tensor a = randn({4, 5}, {}, &gen).to(kBFloat16), b = randn({4, 5}, {}, &gen).to(kBFloat16);
  const Tensor a32 = a.to(kFloat32), b32 = b.to(kFloat32);
  EXPECT_EQ(bf16a_bits(a + b), bf16a_rounded_bits(a32 + b32));
  EXPECT_EQ(bf16a_bits(a * b), bf16a_rounded_bits(a32 * b32));
  EXPECT_EQ(bf16a_bits(a - b * 2.0), bf16a_rounded_bits(a32 - b32 * 2.0f));
  EXPECT_EQ(bf16a_bits(exp(a)), bf16a_rounded_bits(exp(a32)));
  EXPECT_EQ(bf16a_bits(sum(a, {1})), bf16a_rounded_bits(sum(a32, {1})));
  // mean is sum times 1/n, each rounded to bf16 (and 1/n too): three roundings of 2^-8 each.
  const float m = mean(a).item<float>(), m32 = mean(a32).item<float>();
  EXPECT_EQ(mean(a).dtype(), kBFloat16);
  EXPECT_NEAR(m, m32, 3 * std::ldexp(std::abs(m32), -8) + 1e-6);
  EXPECT_EQ(bf16a_bits(matmul(a, b.transpose(0, 1))), bf16a_rounded_bits(matmul(a32, b32.transpose(0, 1))));
  EXPECT_EQ(bf16a_bits(a.transpose(0, 1).contiguous()), bf16a_bits(a32.transpose(0, 1).contiguous().to(kBFloat16)));
  Tensor acc = a.clone();
  add_(acc, b);  // in place: written back rounded
  EXPECT_EQ(bf16a_bits(acc), bf16a_rounded_bits(a32 + b32));
  // bf16 with float32 promotes to float32, computed on the exact bf16 values.
  const Tensor mixed = a + b32;
  EXPECT_EQ(mixed.dtype(), kFloat32);
  EXPECT_EQ(mixed.to_vector<float>(), (a32 + b32).to_vector<float>());
  EXPECT_EQ((a > b).dtype(), kBool);
  EXPECT_EQ((a > b).to_vector<bool>(), (a32 > b32).to_vector<bool>());
}

TEST(BFloat16OpsTest, TheGradientOfACastIsTheCastBack) {
  Generator gen(3);
  Tensor x = randn({3, 4}, {}, &gen).requires_grad_();
  const Tensor w = randn({3, 4}, {}, &gen);
  sum(x.to(kBFloat16).to(kFloat32) * w).backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  // d/dx of round(x) is taken as 1; the gradient arriving at the bf16 tensor is bf16 itself (the
  // backward of its cast to float32 is a cast to bf16), so x gets w rounded to bf16, as in PyTorch.
  EXPECT_EQ(x.grad().to_vector<float>(), w.to(kBFloat16).to(kFloat32).to_vector<float>());
  // Through bf16 arithmetic: the gradient reaching a bf16 leaf is bf16, within bf16 rounding of
  // the float32 gradient (one rounding of a product: relative error <= 2^-8).
  Tensor h = randn({3, 4}, {}, &gen).to(kBFloat16).requires_grad_();
  const Tensor v = randn({3, 4}, {}, &gen).to(kBFloat16);
  sum((h * v).to(kFloat32) * 3.0).backward();
  ASSERT_EQ(h.grad().dtype(), kBFloat16);
  const std::vector<float> g = h.grad().to_vector<float>(), want = (v.to(kFloat32) * 3.0f).to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], std::abs(want[i]) * std::ldexp(1.0, -8)) << i;
}

// gradcheck through bf16 arithmetic: at inputs k/16 with k <= 14 and steps of 1/16, every bf16
// value on the way (x, x +- eps, their squares) is exact in bf16's 8 significant bits, so finite
// differences see the same smooth function autograd differentiates.
TEST(BFloat16OpsTest, GradcheckThroughBf16Products) {
  std::vector<double> values;
  for (int k = 1; k <= 14; ++k) values.push_back((k % 2 ? 1 : -1) * k / 16.0);
  const Tensor x = from_vector(values, {2, 7}).requires_grad_();
  const auto f = [](const std::vector<Tensor>& in) {
    const Tensor h = in[0].to(kBFloat16);
    return (h * h).to(kFloat64);
  };
  const autograd::GradcheckResult r = autograd::gradcheck(f, {x}, 1.0 / 16, 1e-9);
  EXPECT_TRUE(r.ok) << r.message;
}

}  // namespace
}  // namespace strata
