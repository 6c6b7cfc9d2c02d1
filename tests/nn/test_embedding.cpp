#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

TEST(EmbeddingTest, LooksUpRowsAndSumsGradientsIntoThem) {
  nn::Embedding emb(10, 4);
  Tensor ids = tensor({1, 3, 1, 9, 0, 3}, {2, 3});
  Tensor y = emb(ids);
  EXPECT_EQ(y.shape(), Shape({2, 3, 4}));
  EXPECT_EQ(emb.embeddings.shape(), Shape({10, 4}));
  EXPECT_LE(amax(abs(emb.embeddings)).item<double>(), 0.1);  // uniform(-0.1, 0.1)
  Tensor expected = reshape(index_select(emb.embeddings, 0, reshape(ids, {6})), {2, 3, 4});
  EXPECT_TRUE(allclose(y, expected, 0, 0));
  sum(y * 2.0).backward();
  // Row 1 and row 3 are looked up twice, 0 and 9 once, the rest never.
  std::vector<float> counts = {1, 2, 0, 2, 0, 0, 0, 0, 0, 1};
  Tensor expected_grad = reshape(from_vector(counts, {10, 1}) * 2.0, {10, 1}) * ones({10, 4});
  EXPECT_TRUE(allclose(emb.embeddings.grad(), expected_grad, 0, 0));
  EXPECT_EQ(emb(tensor({2, 5})).shape(), Shape({2, 4}));  // any shape of ids
}

TEST(EmbeddingTest, ErrorsNameTheLayer) {
  nn::Embedding emb(10, 4, nn::random_uniform(-0.1, 0.1), "words");
  expect_error([&] { emb(ones({2, 3})); }, {"words (embedding)", "integer ids", "float32"});
  expect_error([&] { emb(tensor({10})); }, {"10"});  // out of the vocabulary
  expect_error([] { nn::Embedding(0, 4); }, {"vocabulary_size"});
}

TEST(EmbeddingTest, OneHotWithValuesAndAxis) {
  Tensor ids = tensor({0, 2, 1}, {3});
  Tensor y = nn::OneHot(3)(ids);
  EXPECT_TRUE(allclose(y, tensor({1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f}, {3, 3})));
  Tensor z = nn::OneHot(4, /*on=*/5, /*off=*/-1)(tensor({3, 0}, {2}));
  EXPECT_TRUE(allclose(z, tensor({-1.0f, -1.0f, -1.0f, 5.0f, 5.0f, -1.0f, -1.0f, -1.0f}, {2, 4})));
  // axis 0: the depth first, [depth, 3].
  Tensor t = nn::OneHot(3, 1, 0, /*axis=*/0)(ids);
  EXPECT_TRUE(allclose(t, y.transpose(0, 1)));
  Tensor batch = nn::OneHot(3, 1, 0, 1, kFloat64)(tensor({0, 1, 2, 0}, {2, 2}));
  EXPECT_EQ(batch.shape(), Shape({2, 3, 2}));
  EXPECT_EQ(batch.dtype(), kFloat64);
  EXPECT_TRUE(allclose(select(batch, 1, 0), tensor({1.0, 0.0, 0.0, 1.0}, {2, 2})));
  expect_error([] { nn::OneHot(3, 1, 0, -1, kFloat32, "oh")(ones({2})); }, {"oh (onehot)", "integer ids"});
  expect_error([] { nn::OneHot(3, 1, 0, 3, kFloat32, "oh2")(tensor({1, 2})); }, {"oh2", "axis 3"});
}

}  // namespace
}  // namespace strata
