#include <gtest/gtest.h>

#include <cmath>

#include "nn/layer_check.hpp"
#include "strata/nn/layers/embedding.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

TEST(PositionalTest, SinusoidalTableFollowsThePaper) {
  Tensor t = nn::sinusoidal_positions(6, 5, kFloat64);
  ASSERT_EQ(t.shape(), Shape({6, 5}));
  auto v = t.to_vector<double>();
  // PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d)); odd d ends in a sin.
  EXPECT_NEAR(v[0 * 5 + 0], 0.0, 1e-15);
  EXPECT_NEAR(v[0 * 5 + 1], 1.0, 1e-15);
  EXPECT_NEAR(v[3 * 5 + 0], std::sin(3.0), 1e-12);
  EXPECT_NEAR(v[3 * 5 + 1], std::cos(3.0), 1e-12);
  EXPECT_NEAR(v[5 * 5 + 2], std::sin(5.0 / std::pow(10000.0, 2.0 / 5)), 1e-12);
  EXPECT_NEAR(v[5 * 5 + 3], std::cos(5.0 / std::pow(10000.0, 2.0 / 5)), 1e-12);
  EXPECT_NEAR(v[4 * 5 + 4], std::sin(4.0 / std::pow(10000.0, 4.0 / 5)), 1e-12);
  EXPECT_NEAR(nn::sinusoidal_positions(2, 2, kFloat64, 100.0).to_vector<double>()[2], std::sin(1.0), 1e-12);
  expect_error([] { nn::sinusoidal_positions(3, 0); }, {"sinusoidal_positions", "dim"});
}

TEST(PositionalTest, SinusoidalLayerAddsTheTableWithoutWeights) {
  nn::SinusoidalPositionalEmbedding pos;
  Tensor x = randn({2, 4, 6}).requires_grad_();
  Tensor y = pos(x);
  EXPECT_TRUE(pos.all_weights().empty());
  EXPECT_TRUE(allclose(y, x + nn::sinusoidal_positions(4, 6), 0, 1e-6));
  sum(y * 3.0).backward();
  EXPECT_TRUE(allclose(x.grad(), full({2, 4, 6}, 3.0), 0, 0));
  // Longer and shorter sequences after the first call.
  EXPECT_TRUE(allclose(pos(zeros({1, 9, 6})), unsqueeze(nn::sinusoidal_positions(9, 6), 0), 0, 1e-6));
  EXPECT_TRUE(allclose(pos(zeros({1, 2, 6}, kFloat64)), unsqueeze(nn::sinusoidal_positions(2, 6, kFloat64), 0)));
  expect_error([&] { pos(zeros({2, 6})); }, {"sinusoidalpositionalembedding", "[batch, seq, dim]", "[2, 6]"});
}

TEST(PositionalTest, LearnedEmbeddingsAreTrainedRows) {
  nn::LearnedPositionalEmbedding pos(10, "pos");
  Tensor x = randn({2, 4, 6});
  Tensor y = pos(x);
  ASSERT_EQ(pos.embeddings.shape(), Shape({10, 6}));
  EXPECT_EQ(pos.named_weights()[0].first, "pos/embeddings");
  EXPECT_LE(amax(abs(pos.embeddings)).item<double>(), 0.04 + 1e-6);  // truncated at 2 stddev
  EXPECT_TRUE(allclose(y, x + narrow(pos.embeddings, 0, 0, 4), 0, 0));
  sum(y).backward();
  // Rows 0..3 got a gradient of the batch size each; the rest none.
  Tensor expected = concat({full({4, 6}, 2.0), zeros({6, 6})}, 0);
  EXPECT_TRUE(allclose(pos.embeddings.grad(), expected, 0, 0));
  expect_error([&] { pos(randn({1, 11, 6})); }, {"pos (learnedpositionalembedding)", "seq <= 10", "[1, 11, 6]"});
  expect_error([&] { pos(randn({1, 3, 5})); }, {"pos", "[1, 3, 5]"});
}

}  // namespace
}  // namespace strata
