// TensorLayer's costs (ops/costs.hpp): values against plain loops over the same numbers,
// gradients against finite differences, and the errors bad arguments give.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using autograd::gradcheck;

void expect_gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& in) {
  auto r = gradcheck(f, in);
  EXPECT_TRUE(r.ok) << r.message;
}

Tensor probs(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  return uniform(shape, 0.05, 0.95, kFloat64, &gen);
}

TEST(CostsTest, BinaryCrossEntropyOnProbabilities) {
  Tensor p = probs({3, 4}, 1), t = probs({3, 4}, 2);
  std::vector<double> pv = p.to_vector<double>(), tv = t.to_vector<double>();
  double total = 0;
  for (size_t i = 0; i < pv.size(); ++i)
    total -= tv[i] * std::log(pv[i] + 1e-8) + (1 - tv[i]) * std::log(1 - pv[i] + 1e-8);
  EXPECT_NEAR(binary_cross_entropy(p, t).item<double>(), total / 12, 1e-12);
  EXPECT_NEAR(binary_cross_entropy(p, t, Reduction::sum).item<double>(), total, 1e-12);
  EXPECT_EQ(binary_cross_entropy(p, t, Reduction::none).shape(), (Shape{3, 4}));
  // Equals the logits form on sigmoid(x) (up to eps).
  Generator gen(3);
  Tensor x = randn({3, 4}, kFloat64, &gen);
  EXPECT_NEAR(binary_cross_entropy(sigmoid(x), t, Reduction::mean, 0).item<double>(),
              binary_cross_entropy_with_logits(x, t).item<double>(), 1e-12);
  // Clamped: p = 0 and 1 give a finite loss.
  Tensor edge = tensor({0.0, 1.0}, {2});
  EXPECT_TRUE(std::isfinite(binary_cross_entropy(edge, tensor({1.0, 0.0}, {2})).item<double>()));
  expect_gradcheck([&](const std::vector<Tensor>& v) { return binary_cross_entropy(v[0], v[1]); },
                   {p.clone().requires_grad_(), t.clone().requires_grad_()});
}

TEST(CostsTest, BinaryCrossEntropyRejectsNonProbabilities) {
  testing::expect_error([] { binary_cross_entropy(tensor({0.5, 1.5}, {2}), tensor({1.0, 0.0}, {2})); },
                        {"binary_cross_entropy", "[0, 1]", "1.5"});
  testing::expect_error([] { binary_cross_entropy(tensor({0.5}, {1}), tensor({1.0, 0.0}, {2})); },
                        {"binary_cross_entropy", "shape"});
}

// Per-sample reference of the dice-like coefficients over a [N, K] view.
struct Sums {
  double ot = 0, o = 0, t = 0, oo = 0, tt = 0;
};
std::vector<Sums> sums(const Tensor& o, const Tensor& t) {
  const int64_t n = o.shape()[0], k = o.numel() / n;
  std::vector<double> ov = o.to_vector<double>(), tv = t.to_vector<double>();
  std::vector<Sums> out(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const double a = ov[i * k + j], b = tv[i * k + j];
      out[i].ot += a * b, out[i].o += a, out[i].t += b, out[i].oo += a * a, out[i].tt += b * b;
    }
  return out;
}

TEST(CostsTest, SoftDiceAndIou) {
  Tensor o = probs({2, 3, 3, 1}, 4), t = probs({2, 3, 3, 1}, 5);
  const double s = 1e-5;
  double jac = 0, sor = 0, iou = 0;
  for (const Sums& x : sums(o, t)) {
    jac += (2 * x.ot + s) / (x.oo + x.tt + s) / 2;
    sor += (2 * x.ot + s) / (x.o + x.t + s) / 2;
    iou += (x.ot + s) / (x.o + x.t - x.ot + s) / 2;
  }
  EXPECT_NEAR(dice_coe(o, t).item<double>(), jac, 1e-12);
  EXPECT_NEAR(dice_coe(o, t, DiceKind::sorensen).item<double>(), sor, 1e-12);
  EXPECT_NEAR(soft_iou_coe(o, t).item<double>(), iou, 1e-12);
  // Identical binary maps score 1.
  Tensor m = cast(o > 0.5, kFloat64);
  EXPECT_NEAR(dice_coe(m, m, DiceKind::sorensen).item<double>(), 1.0, 1e-9);
  for (DiceKind k : {DiceKind::jaccard, DiceKind::sorensen})
    expect_gradcheck([k](const std::vector<Tensor>& v) { return dice_coe(v[0], v[1], k); },
                     {o.clone().requires_grad_(), t.clone().requires_grad_()});
  expect_gradcheck([](const std::vector<Tensor>& v) { return soft_iou_coe(v[0], v[1]); },
                   {o.clone().requires_grad_(), t.clone().requires_grad_()});
}

TEST(CostsTest, HardDiceAndIouCountThresholdedPixels) {
  // Sample 0: o = {1,1,0,0}, t = {1,0,1,0}: |o&t| = 1, |o| + |t| = 4, |o|t| = 3.
  // Sample 1: o = {1,1,1,1}, t = {1,1,1,1}: dice 1, iou 1.
  Tensor o = tensor({0.9, 0.7, 0.2, 0.1, 0.6, 0.8, 0.9, 0.51}, {2, 4});
  Tensor t = tensor({1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0}, {2, 4});
  const double s = 1e-5;
  EXPECT_NEAR(dice_hard_coe(o, t).item<double>(), ((2 + s) / (4 + s) + 1) / 2, 1e-12);
  EXPECT_NEAR(iou_coe(o, t).item<double>(), ((1 + s) / (3 + s) + 1) / 2, 1e-12);
  // Only the second axis, and a threshold above every value of sample 1's output but one.
  EXPECT_NEAR(iou_coe(o, t, 0.85, {1}).item<double>(), ((1 + s) / (2 + s) + (1 + s) / (4 + s)) / 2, 1e-12);
}

TEST(CostsTest, CosineSimilarityPerRow) {
  Generator gen(6);
  Tensor a = randn({3, 5}, kFloat64, &gen), b = randn({3, 5}, kFloat64, &gen);
  std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> got = cosine_similarity(a, b).to_vector<double>();
  ASSERT_EQ(got.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    double d = 0, na = 0, nb = 0;
    for (int c = 0; c < 5; ++c) d += av[r * 5 + c] * bv[r * 5 + c], na += av[r * 5 + c] * av[r * 5 + c],
                                nb += bv[r * 5 + c] * bv[r * 5 + c];
    EXPECT_NEAR(got[r], d / std::sqrt(na * nb), 1e-12);
  }
  EXPECT_NEAR(cosine_similarity(a, a * 3.0).to_vector<double>()[1], 1.0, 1e-12);
  EXPECT_EQ(cosine_similarity(a, b, 0).shape(), (Shape{5}));
  expect_gradcheck([](const std::vector<Tensor>& v) { return cosine_similarity(v[0], v[1]); },
                   {a.clone().requires_grad_(), b.clone().requires_grad_()});
}

TEST(CostsTest, NormalizedMse) {
  Generator gen(7);
  Tensor o = randn({2, 3, 2}, kFloat64, &gen), t = randn({2, 3, 2}, kFloat64, &gen);
  std::vector<double> ov = o.to_vector<double>(), tv = t.to_vector<double>();
  double want = 0;
  for (int i = 0; i < 2; ++i) {
    double e = 0, n = 0;
    for (int j = 0; j < 6; ++j) e += std::pow(ov[i * 6 + j] - tv[i * 6 + j], 2), n += tv[i * 6 + j] * tv[i * 6 + j];
    want += std::sqrt(e) / std::sqrt(n) / 2;
  }
  EXPECT_NEAR(normalized_mse(o, t).item<double>(), want, 1e-12);
  EXPECT_EQ(normalized_mse(o, t, Reduction::none).shape(), (Shape{2}));
  expect_gradcheck([](const std::vector<Tensor>& v) { return normalized_mse(v[0], v[1]); },
                   {o.clone().requires_grad_(), t.clone().requires_grad_()});
}

TEST(CostsTest, MaskedSequenceCrossEntropy) {
  Generator gen(8);
  Tensor logits = randn({2, 3, 4}, kFloat64, &gen);
  std::vector<int64_t> ids = {1, 3, 0, 2, 2, 1};
  Tensor targets = from_vector(ids, {2, 3});
  Tensor mask = tensor({1.0, 1.0, 0.0, 1.0, 0.0, 0.0}, {2, 3});
  std::vector<double> x = logits.to_vector<double>(), m = mask.to_vector<double>();
  double total = 0, count = 0;
  for (int s = 0; s < 6; ++s) {
    double lse = 0;
    for (int c = 0; c < 4; ++c) lse += std::exp(x[s * 4 + c]);
    total += m[s] * (std::log(lse) - x[s * 4 + ids[s]]);
    count += m[s];
  }
  EXPECT_NEAR(cross_entropy_seq_with_mask(logits, targets, mask).item<double>(), total / count, 1e-12);
  // TensorLayer's flattened logits give the same.
  EXPECT_NEAR(cross_entropy_seq_with_mask(reshape(logits, {6, 4}), targets, mask).item<double>(), total / count,
              1e-12);
  expect_gradcheck([&](const std::vector<Tensor>& v) { return cross_entropy_seq_with_mask(v[0], targets, mask); },
                   {logits.clone().requires_grad_()});
  testing::expect_error([&] { cross_entropy_seq_with_mask(logits, targets, zeros({2, 3}, kFloat64)); },
                        {"cross_entropy_seq_with_mask", "mask marks no step"});
  testing::expect_error([&] { cross_entropy_seq_with_mask(randn({5, 4}, kFloat64), targets, mask); },
                        {"cross_entropy_seq_with_mask", "[B, T, C]", "[5, 4]"});
}

TEST(CostsTest, Regularisers) {
  Tensor w = tensor({1.0, -2.0, 3.0, -4.0, 0.5, 6.0}, {2, 3});
  EXPECT_NEAR(l1_regularizer(w, 0.1).item<double>(), 0.1 * 16.5, 1e-12);
  EXPECT_NEAR(l2_regularizer(w, 0.1).item<double>(), 0.1 * (1 + 4 + 9 + 16 + 0.25 + 36) / 2, 1e-12);
  EXPECT_NEAR(li_regularizer(w, 0.5).item<double>(), 0.5 * (std::sqrt(14.0) + std::sqrt(52.25)), 1e-12);
  EXPECT_NEAR(lo_regularizer(w, 0.5).item<double>(), 0.5 * (std::sqrt(17.0) + std::sqrt(4.25) + std::sqrt(45.0)),
              1e-12);
  EXPECT_NEAR(maxnorm_regularizer(w, 2).item<double>(), 12.0, 1e-12);
  EXPECT_NEAR(maxnorm_o_regularizer(w, 1).item<double>(), 4 + 2 + 6, 1e-12);
  EXPECT_NEAR(maxnorm_i_regularizer(w, 1).item<double>(), 3 + 6, 1e-12);
  using Reg = Tensor (*)(const Tensor&, double);
  for (Reg f : {Reg(l1_regularizer), Reg(l2_regularizer), Reg(li_regularizer), Reg(lo_regularizer),
                Reg(maxnorm_regularizer), Reg(maxnorm_o_regularizer), Reg(maxnorm_i_regularizer)})
    expect_gradcheck([f](const std::vector<Tensor>& v) { return f(v[0], 0.3); }, {w.clone().requires_grad_()});
  testing::expect_error([&] { li_regularizer(w, -1); }, {"li_regularizer", "scale", "-1"});
  testing::expect_error([] { lo_regularizer(zeros({2, 2, 2}, kFloat64), 1); }, {"lo_regularizer", "2-D"});
}

TEST(CostsTest, SecondOrderGradients) {
  // Composed of differentiable ops, the costs differentiate twice (a WGAN-GP-style penalty on a
  // cost's gradient needs it).
  Tensor o = probs({2, 3}, 9), t = probs({2, 3}, 10);
  auto check = [](const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& in) {
    auto r = autograd::gradgradcheck(f, in);
    EXPECT_TRUE(r.ok) << r.message;
  };
  check([](const std::vector<Tensor>& v) { return dice_coe(v[0], v[1]); },
        {o.clone().requires_grad_(), t.clone().requires_grad_()});
  check([](const std::vector<Tensor>& v) { return cosine_similarity(v[0], v[1]); },
        {o.clone().requires_grad_(), t.clone().requires_grad_()});
  check([](const std::vector<Tensor>& v) { return binary_cross_entropy(v[0], v[1]); },
        {o.clone().requires_grad_(), t.clone().requires_grad_()});
}

}  // namespace
}  // namespace strata
