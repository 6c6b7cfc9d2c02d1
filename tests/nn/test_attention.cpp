#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nn/layer_check.hpp"
#include "nn/weight_gradcheck.hpp"
#include "strata/nn/layers/attention.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;
using testing_nn::expect_weight_grads;
using testing_nn::f64_uniform;

// x [B, S, in] · W [in, out] + b, by loops.
std::vector<double> loop_linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t rows = x.size(0) * x.size(1), in = w.size(0), out = w.size(1);
  auto xv = x.to_vector<double>(), wv = w.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> y(rows * out);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double acc = bv[o];
      for (int64_t i = 0; i < in; ++i) acc += xv[r * in + i] * wv[i * out + o];
      y[r * out + o] = acc;
    }
  return y;
}

struct LoopAttention {
  std::vector<double> out;      // [B, Sq, E]
  std::vector<double> weights;  // [B, Sq, Sk], averaged over heads
};

// MultiheadAttention written out: per head, scores over the keys not `masked(b, i, j)`,
// a softmax by hand, the weighted values, then the output projection.
template <class Masked>
LoopAttention loop_attention(const nn::MultiheadAttention& m, const Tensor& q, const Tensor& k, const Tensor& v,
                             Masked masked) {
  const int64_t B = q.size(0), sq = q.size(1), sk = k.size(1), E = m.embed_dim(), H = m.num_heads(), D = E / H;
  auto qp = loop_linear(q, m.q_weight, m.q_bias), kp = loop_linear(k, m.k_weight, m.k_bias),
       vp = loop_linear(v, m.v_weight, m.v_bias);
  std::vector<double> concat(B * sq * E, 0.0);
  LoopAttention r{{}, std::vector<double>(B * sq * sk, 0.0)};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        std::vector<double> s(sk);
        double mx = -1e300, total = 0;
        for (int64_t j = 0; j < sk; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += qp[(b * sq + i) * E + h * D + d] * kp[(b * sk + j) * E + h * D + d];
          s[j] = dot / std::sqrt(static_cast<double>(D));
          if (!masked(b, i, j)) mx = std::max(mx, s[j]);
        }
        for (int64_t j = 0; j < sk; ++j) total += s[j] = masked(b, i, j) ? 0.0 : std::exp(s[j] - mx);
        for (int64_t j = 0; j < sk; ++j) {
          double w = s[j] / total;
          r.weights[(b * sq + i) * sk + j] += w / H;
          for (int64_t d = 0; d < D; ++d) concat[(b * sq + i) * E + h * D + d] += w * vp[(b * sk + j) * E + h * D + d];
        }
      }
  r.out = loop_linear(from_vector(concat, {B, sq, E}), m.out_weight, m.out_bias);
  return r;
}

void expect_near_all(const Tensor& got, const std::vector<double>& want, double tol = 1e-10) {
  auto g = got.to_vector<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << "element " << i;
}

TEST(AttentionTest, MultiheadMatchesPlainLoopsWithPaddingMask) {
  nn::MultiheadAttention m(4, 2, 0.0, true, "", f64_uniform(1), f64_uniform(2));
  Generator gen(3);
  Tensor q = uniform({2, 3, 4}, -1, 1, kFloat64, &gen), k = uniform({2, 5, 3}, -1, 1, kFloat64, &gen),
         v = uniform({2, 5, 6}, -1, 1, kFloat64, &gen);
  // Sample 0 has its last two keys padded, sample 1 its first.
  Tensor pad = tensor({0, 0, 0, 1, 1, 1, 0, 0, 0, 0}, {2, 5}) > 0.5;
  auto [y, w] = m.with_weights(q, k, v, {.key_padding_mask = pad});
  EXPECT_EQ(m.k_weight.shape(), Shape({3, 4}));  // kdim and vdim inferred
  EXPECT_EQ(m.v_weight.shape(), Shape({6, 4}));
  ASSERT_EQ(y.shape(), Shape({2, 3, 4}));
  ASSERT_EQ(w.shape(), Shape({2, 3, 5}));
  auto ref = loop_attention(m, q, k, v, [](int64_t b, int64_t, int64_t j) { return b == 0 ? j >= 3 : j == 0; });
  expect_near_all(y, ref.out);
  expect_near_all(w, ref.weights);
  // Masked keys get exactly zero weight; each row sums to one.
  EXPECT_EQ(amax(select(select(w, 0, 0), 1, 4)).item<double>(), 0.0);
  EXPECT_EQ(amax(masked_select(w, expand(unsqueeze(pad, 1), {2, 3, 5}))).item<double>(), 0.0);
  EXPECT_TRUE(allclose(sum(w, {-1}), ones({2, 3}, kFloat64)));
  // Per-head weights average to the returned ones.
  auto [y2, per_head] = m.with_weights(q, k, v, {.key_padding_mask = pad}, false);
  EXPECT_EQ(per_head.shape(), Shape({2, 2, 3, 5}));
  EXPECT_TRUE(allclose(mean(per_head, {1}), w));
}

TEST(AttentionTest, CausalRowsIgnoreTheFuture) {
  nn::MultiheadAttention m(4, 2, 0.0, true, "", f64_uniform(4), f64_uniform(5));
  Generator gen(6);
  Tensor x = uniform({1, 4, 4}, -1, 1, kFloat64, &gen);
  auto [y, w] = m.with_weights(x, x, x, {.causal = true});
  auto ref = loop_attention(m, x, x, x, [](int64_t, int64_t i, int64_t j) { return j > i; });
  expect_near_all(y, ref.out);
  expect_near_all(w, ref.weights);
  // Changing the last position changes only the last output row.
  Tensor x2 = clone(x);
  {
    NoGradGuard no_grad;
    Tensor last = narrow(x2, 1, 3, 1);
    fill_(last, 5.0);
  }
  Tensor y2 = m(x2, x2, x2, {.causal = true});
  EXPECT_TRUE(allclose(narrow(y2, 1, 0, 3), narrow(y, 1, 0, 3), 0, 1e-12));
  EXPECT_FALSE(allclose(narrow(y2, 1, 3, 1), narrow(y, 1, 3, 1)));
  // The same as a bool attn_mask, and as an additive one.
  Tensor additive = masked_fill(zeros({4, 4}, kFloat64), nn::causal_mask(4), -INFINITY);
  EXPECT_TRUE(allclose(m(x, x, x, {.attn_mask = nn::causal_mask(4)}), y, 0, 1e-12));
  EXPECT_TRUE(allclose(m(x, x, x, {.attn_mask = additive}), y, 0, 1e-12));
}

TEST(AttentionTest, AttnMaskShapesAndFullyMaskedRows) {
  nn::MultiheadAttention m(4, 2, 0.0, true, "", f64_uniform(7), f64_uniform(8));
  Generator gen(9);
  Tensor q = uniform({2, 3, 4}, -1, 1, kFloat64, &gen), kv = uniform({2, 4, 4}, -1, 1, kFloat64, &gen);
  Tensor mask2 = bernoulli({3, 4}, 0.3, kFloat32, &gen) > 0.5;
  Tensor y2 = m(q, kv, kv, {.attn_mask = mask2});
  // PyTorch's [B * heads, Sq, Sk] and a [B, heads, Sq, Sk] mask mean the same.
  Tensor per_head = expand(reshape(mask2, {1, 1, 3, 4}), {2, 2, 3, 4});
  EXPECT_TRUE(allclose(m(q, kv, kv, {.attn_mask = contiguous(per_head)}), y2, 0, 1e-12));
  EXPECT_TRUE(allclose(m(q, kv, kv, {.attn_mask = reshape(per_head, {4, 3, 4})}), y2, 0, 1e-12));
  // A query whose keys are all masked attends to nothing: zero weights, output = out_bias.
  Tensor all_masked = tensor({1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0}, {3, 4}) > 0.5;
  auto [y, w] = m.with_weights(q, kv, kv, {.attn_mask = all_masked});
  EXPECT_TRUE(allclose(select(w, 1, 0), zeros({2, 4}, kFloat64), 0, 0));
  EXPECT_TRUE(allclose(select(y, 1, 0), expand(m.out_bias, {2, 4}), 0, 1e-12));
  EXPECT_TRUE(allclose(sum(select(w, 1, 2), {-1}), ones({2}, kFloat64)));
  // Gradients stay finite through the fully masked row.
  Tensor qg = clone(q).requires_grad_();
  sum(m(qg, kv, kv, {.attn_mask = all_masked})).backward();
  EXPECT_TRUE(allclose(qg.grad(), qg.grad()));  // NaN != NaN
}

TEST(AttentionTest, GradientsInFloat64) {
  nn::MultiheadAttention m(4, 2, 0.0, true, "", f64_uniform(10), f64_uniform(11));
  Generator gen(12);
  Tensor q = uniform({2, 3, 4}, -1, 1, kFloat64, &gen), k = uniform({2, 4, 3}, -1, 1, kFloat64, &gen),
         v = uniform({2, 4, 2}, -1, 1, kFloat64, &gen);
  Tensor pad = tensor({0, 0, 0, 1, 0, 1, 0, 0}, {2, 4}) > 0.5;
  Tensor g = uniform({2, 3, 4}, -1, 1, kFloat64, &gen);  // a random output weighting
  nn::AttentionMask mask{.attn_mask = uniform({3, 4}, -1, 1, kFloat64, &gen), .key_padding_mask = pad, .causal = true};
  expect_gradcheck([&](const std::vector<Tensor>& x) { return m(x[0], x[1], x[2], mask) * g; }, {q, k, v});
  expect_weight_grads([&] { return m(q, k, v, mask) * g; }, m.trainable_weights());
  // The additive mask is differentiable too.
  expect_gradcheck(
      [&](const std::vector<Tensor>& x) {
        return nn::scaled_dot_product_attention(x[0], x[1], x[2], x[3], true) * narrow(g, 2, 0, 2);
      },
      {narrow(q, 2, 0, 3).detach(), k, narrow(v, 2, 0, 2).detach(), uniform({2, 1, 4}, -1, 1, kFloat64, &gen)});
}

TEST(AttentionTest, ScaledDotProductMatchesTheFormula) {
  Generator gen(13);
  Tensor q = uniform({2, 3, 4}, -1, 1, kFloat64, &gen), k = uniform({2, 5, 4}, -1, 1, kFloat64, &gen),
         v = uniform({2, 5, 3}, -1, 1, kFloat64, &gen);
  Tensor w;
  Tensor y = nn::scaled_dot_product_attention(q, k, v, Tensor(), false, 0, &w, 0.25);
  Tensor expected_w = softmax(matmul(q, mT(k)) * 0.25, -1);
  EXPECT_TRUE(allclose(w, expected_w, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(y, matmul(expected_w, v), 1e-12, 1e-12));
  // Default scale 1/sqrt(4); the leading axes broadcast (one k and v for both queries' batches).
  Tensor y1 = nn::scaled_dot_product_attention(q, select(k, 0, 0), select(v, 0, 0));
  EXPECT_TRUE(allclose(y1, matmul(softmax(matmul(q, mT(select(k, 0, 0))) * 0.5, -1), select(v, 0, 0)), 1e-12, 1e-12));
  expect_error([&] { nn::scaled_dot_product_attention(q, k, v, ones({4, 5}) > 0.5); },
               {"scaled_dot_product_attention", "[4, 5]", "[2, 3, 5]"});
  expect_error([&] { nn::scaled_dot_product_attention(q, v, v); }, {"scaled_dot_product_attention", "[2, 5, 3]"});
  EXPECT_TRUE(allclose(nn::causal_mask(2, 3), tensor({0, 1, 1, 0, 0, 1}, {2, 3}) > 0.5));
}

TEST(AttentionTest, DropoutOnlyInTraining) {
  nn::MultiheadAttention m(8, 2, 0.5);
  Tensor x = randn({2, 6, 8});
  Tensor a = m(x), b = m(x);
  EXPECT_FALSE(allclose(a, b)) << "two training calls should drop different weights";
  m.eval();
  Tensor c = m(x), d = m(x);
  EXPECT_TRUE(allclose(c, d, 0, 0));
  // Eval is plain attention: the same as the layer's weights without dropout.
  nn::MultiheadAttention plain(8, 2, 0.0);
  plain(x);
  {
    NoGradGuard no_grad;
    auto src = m.trainable_weights(), dst = plain.trainable_weights();
    for (size_t i = 0; i < src.size(); ++i) copy_(dst[i], src[i]);
  }
  EXPECT_TRUE(allclose(plain(x), c, 1e-5, 1e-6));
}

TEST(AttentionTest, LayerInterfaceAndErrors) {
  nn::MultiheadAttention m(6, 3, 0.0, true, "attn");
  Tensor x = randn({2, 4, 6});
  Tensor y = m(x);  // self-attention
  EXPECT_TRUE(allclose(y, m(x, x, x), 0, 0));
  EXPECT_TRUE(allclose(m({x, x}), y, 0, 0));  // {query, key-and-value}
  auto names = m.named_weights();
  ASSERT_EQ(names.size(), 8u);
  EXPECT_EQ(names[0].first, "attn/q_weight");
  EXPECT_EQ(names[7].first, "attn/out_bias");
  EXPECT_EQ(m.count_params(), 4 * (6 * 6 + 6));
  EXPECT_EQ(nn::MultiheadAttention(6, 3, 0.0, false)(x).shape(), Shape({2, 4, 6}));
  expect_error([] { nn::MultiheadAttention(6, 4); }, {"embed_dim", "num_heads 4"});
  expect_error([&] { m(randn({2, 4, 5})); }, {"attn (multiheadattention)", "[batch, seq, 6]", "[2, 4, 5]"});
  expect_error([&] { m(x, randn({2, 4, 7}), x); }, {"attn", "key", "[2, 4, 7]"});
  expect_error([&] { m(x, x, x, {.key_padding_mask = ones({2, 5}) > 0.5}); }, {"attn", "key_padding_mask", "[2, 4]"});
  expect_error([&] { m(x, x, x, {.attn_mask = ones({3, 4, 4}) > 0.5}); }, {"attn", "attn_mask", "[6, 4, 4]"});
}

}  // namespace
}  // namespace strata
