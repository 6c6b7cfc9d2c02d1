#include <gtest/gtest.h>

#include "nn/layer_check.hpp"
#include "strata/nn/layers/attention.hpp"
#include "strata/nn/layers/embedding.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_same_as;
using testing_nn::randomize;

constexpr int64_t E = 8, F = 16;
const nn::TransformerOptions kNoDropout{.dim_feedforward = F, .dropout = 0.0};

Tensor norm_of(const Tensor& x, const nn::LayerNorm& n) { return layer_norm(x, {E}, n.gamma, n.beta, 1e-5); }
Tensor ff_of(const Tensor& x, const nn::Dense& l1, const nn::Dense& l2) {
  return linear(relu(linear(x, l1.W, l1.b)), l2.W, l2.b);
}

TEST(TransformerTest, EncoderLayerIsItsBlocksWithResidualsAndNorms) {
  for (bool norm_first : {false, true}) {
    nn::TransformerEncoderLayer enc(E, 2, {.dim_feedforward = F, .dropout = 0.0, .norm_first = norm_first});
    Tensor x = randn({2, 5, E});
    Tensor pad = tensor({0, 0, 0, 0, 1, 0, 0, 0, 0, 0}, {2, 5}) > 0.5;
    nn::AttentionMask mask{.key_padding_mask = pad};
    enc(x, mask);
    randomize(enc);
    auto sa = [&](const Tensor& h) { return enc.self_attn(h, h, h, mask); };
    auto reference = [&](const Tensor& x) {
      if (norm_first) {
        Tensor h = x + sa(norm_of(x, enc.norm1));
        return h + ff_of(norm_of(h, enc.norm2), enc.linear1, enc.linear2);
      }
      Tensor h = norm_of(x + sa(x), enc.norm1);
      return norm_of(h + ff_of(h, enc.linear1, enc.linear2), enc.norm2);
    };
    expect_same_as([&](const Tensor& x) { return enc(x, mask); }, reference, x, enc.trainable_weights(), 1e-4);
  }
}

TEST(TransformerTest, DecoderLayerIsItsBlocksWithResidualsAndNorms) {
  for (bool norm_first : {false, true}) {
    nn::TransformerDecoderLayer dec(E, 2, {.dim_feedforward = F, .dropout = 0.0, .norm_first = norm_first});
    Tensor tgt = randn({2, 4, E}), memory = randn({2, 6, E});
    nn::AttentionMask causal{.causal = true};
    dec(tgt, memory, causal);
    randomize(dec);
    auto reference = [&](const Tensor& x) {
      auto sa = [&](const Tensor& h) { return dec.self_attn(h, h, h, causal); };
      auto ca = [&](const Tensor& h) { return dec.cross_attn(h, memory, memory); };
      if (norm_first) {
        Tensor h = x + sa(norm_of(x, dec.norm1));
        h = h + ca(norm_of(h, dec.norm2));
        return h + ff_of(norm_of(h, dec.norm3), dec.linear1, dec.linear2);
      }
      Tensor h = norm_of(x + sa(x), dec.norm1);
      h = norm_of(h + ca(h), dec.norm2);
      return norm_of(h + ff_of(h, dec.linear1, dec.linear2), dec.norm3);
    };
    expect_same_as([&](const Tensor& x) { return dec(x, memory, causal); }, reference, tgt, dec.trainable_weights(),
                   1e-4);
  }
}

TEST(TransformerTest, EncoderLayerIsPermutationEquivariantWithoutPositions) {
  nn::TransformerEncoderLayer enc(E, 2, kNoDropout);
  Tensor x = randn({2, 5, E});
  Tensor perm = tensor({3, 0, 4, 1, 2}, {5}).to(kInt64);
  Tensor pad = tensor({0, 1, 0, 0, 1, 0, 0, 0, 0, 0}, {2, 5}) > 0.5;
  Tensor y = enc(x, {.key_padding_mask = pad});
  Tensor yp = enc(index_select(x, 1, perm), {.key_padding_mask = index_select(pad, 1, perm)});
  EXPECT_TRUE(allclose(yp, index_select(y, 1, perm), 1e-4, 1e-5));
  // With sinusoidal positions added first, order matters: the property is not vacuous.
  nn::SinusoidalPositionalEmbedding pos;
  Tensor z = enc(pos(x)), zp = enc(pos(index_select(x, 1, perm)));
  EXPECT_FALSE(allclose(zp, index_select(z, 1, perm), 1e-3, 1e-3));
}

TEST(TransformerTest, DecoderLayerHonoursCausalAndMemoryPaddingMasks) {
  nn::TransformerDecoderLayer dec(E, 2, kNoDropout);
  Tensor tgt = randn({1, 4, E}), memory = randn({1, 6, E});
  Tensor pad = tensor({0, 0, 0, 0, 1, 1}, {1, 6}) > 0.5;
  nn::AttentionMask causal{.causal = true}, mem{.key_padding_mask = pad};
  Tensor y = dec(tgt, memory, causal, mem);
  EXPECT_EQ(y.shape(), Shape({1, 4, E}));
  Tensor tgt2 = clone(tgt), memory2 = clone(memory);
  {
    NoGradGuard no_grad;
    Tensor t = narrow(tgt2, 1, 3, 1), m = narrow(memory2, 1, 4, 2);
    fill_(t, 3.0);
    fill_(m, -7.0);
  }
  // The padded memory positions change nothing; the last target position only its own row.
  EXPECT_TRUE(allclose(dec(tgt, memory2, causal, mem), y, 0, 1e-6));
  Tensor y2 = dec(tgt2, memory, causal, mem);
  EXPECT_TRUE(allclose(narrow(y2, 1, 0, 3), narrow(y, 1, 0, 3), 0, 1e-6));
  EXPECT_FALSE(allclose(narrow(y2, 1, 3, 1), narrow(y, 1, 3, 1)));
  EXPECT_FALSE(allclose(dec(tgt, memory2), dec(tgt, memory)));  // without the mask they matter
}

TEST(TransformerTest, TransformerStacksAndParameters) {
  nn::Transformer model(E, 2, 2, 1, kNoDropout, "tf");
  Tensor src = randn({2, 5, E}), tgt = randn({2, 3, E});
  nn::TransformerMasks masks{.tgt = {.causal = true}};
  Tensor y = model(src, tgt, masks);
  EXPECT_EQ(y.shape(), Shape({2, 3, E}));
  // The same as the stacks called by hand.
  EXPECT_TRUE(allclose(model.decoder(tgt, model.encoder(src, {}), masks.tgt), y, 0, 0));
  const int64_t mha = 4 * (E * E + E), ff = E * F + F + F * E + E, ln = 2 * E;
  EXPECT_EQ(model.count_params(), 2 * (mha + ff + 2 * ln) + (2 * mha + ff + 3 * ln) + 2 * ln);
  EXPECT_NE(model.find("tf/encoder/layer1/self_attn"), nullptr);
  EXPECT_NE(model.find("tf/decoder/norm"), nullptr);
  EXPECT_EQ(model.named_weights()[0].first, "tf/encoder/layer0/self_attn/q_weight");
  sum(y).backward();
  for (auto& [name, w] : model.named_weights()) EXPECT_TRUE(w.grad().defined()) << name << " got no gradient";
  expect_error([&] { model(src); }, {"tf (transformer)", "src and tgt"});
  expect_error([] { nn::TransformerEncoder(0, E, 2); }, {"num_layers", "0"});
}

TEST(TransformerTest, DropoutOnlyInTraining) {
  nn::TransformerEncoder enc(2, E, 2, {.dim_feedforward = F, .dropout = 0.3}, true);
  Tensor x = randn({2, 5, E});
  EXPECT_FALSE(allclose(enc(x), enc(x)));
  enc.eval();
  EXPECT_FALSE(enc.layer(1).self_attn.training());  // eval reaches the attention inside
  Tensor a = enc(x);
  EXPECT_TRUE(allclose(enc(x), a, 0, 0));
  // Eval output is the dropout-free computation: each layer by hand.
  Tensor h = x;
  for (size_t i = 0; i < 2; ++i) h = enc.layer(i)(h);
  auto* norm = dynamic_cast<nn::LayerNorm*>(enc.find(enc.name() + "/norm"));
  ASSERT_NE(norm, nullptr);
  EXPECT_TRUE(allclose(a, norm_of(h, *norm), 1e-5, 1e-6));
}

TEST(TransformerTest, EncoderLayerInAStaticModel) {
  auto x = nn::Input({-1, 5, E});
  auto h = nn::TransformerEncoderLayer(E, 2, kNoDropout)(x);
  nn::Model net(x, nn::Dense(3)(h));
  EXPECT_EQ(net(randn({4, 5, E})).shape(), Shape({4, 5, 3}));
}

}  // namespace
}  // namespace strata
