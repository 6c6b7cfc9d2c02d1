#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

// Backpropagates a random gradient through y and returns the gradients of the inputs.
std::vector<Tensor> input_grads(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                const std::vector<Tensor>& xs, Tensor* out) {
  std::vector<Tensor> leaves;
  for (const Tensor& x : xs) leaves.push_back(clone(x).requires_grad_());
  Tensor y = f(leaves);
  Generator gen(3);
  sum(y * uniform(y.shape(), -1, 1, kFloat32, &gen)).backward();
  *out = y.detach();
  std::vector<Tensor> grads;
  for (const Tensor& l : leaves) grads.push_back(l.grad());
  return grads;
}

void expect_same(const std::function<Tensor(const std::vector<Tensor>&)>& layer,
                 const std::function<Tensor(const std::vector<Tensor>&)>& reference, const std::vector<Tensor>& xs) {
  Tensor y1, y2;
  auto g1 = input_grads(layer, xs, &y1), g2 = input_grads(reference, xs, &y2);
  EXPECT_TRUE(allclose(y1, y2, 1e-6, 1e-6));
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_TRUE(allclose(g1[i], g2[i], 1e-6, 1e-6)) << "input " << i;
}

TEST(MergeTest, ConcatJoinsAlongTheChannels) {
  nn::Concat cat;
  Tensor a = randn({2, 3}), b = randn({2, 4});
  EXPECT_EQ(cat({a, b}).shape(), Shape({2, 7}));
  expect_same([&](const std::vector<Tensor>& v) { return cat(v); },
              [](const std::vector<Tensor>& v) { return concat(v, 1); }, {a, b});
  nn::Concat rows(0);
  EXPECT_EQ(rows({a, randn({5, 3})}).shape(), Shape({7, 3}));
}

TEST(MergeTest, ElementwiseCombines) {
  Tensor a = randn({2, 3}), b = randn({2, 3}), c = randn({2, 3});
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  std::vector<std::pair<std::string, Fn>> cases = {
      {"add", [](const std::vector<Tensor>& v) { return v[0] + v[1] + v[2]; }},
      {"multiply", [](const std::vector<Tensor>& v) { return v[0] * v[1] * v[2]; }},
      {"maximum", [](const std::vector<Tensor>& v) { return maximum(maximum(v[0], v[1]), v[2]); }},
      {"minimum", [](const std::vector<Tensor>& v) { return minimum(minimum(v[0], v[1]), v[2]); }},
      {"mean", [](const std::vector<Tensor>& v) { return (v[0] + v[1] + v[2]) / 3.0; }},
  };
  for (auto& [name, reference] : cases) {
    SCOPED_TRACE(name);
    nn::Elementwise layer(name);
    expect_same([&](const std::vector<Tensor>& v) { return layer(v); }, reference, {a, b, c});
  }
  nn::Elementwise custom([](const Tensor& x, const Tensor& y) { return x - y; }, "relu");
  expect_same([&](const std::vector<Tensor>& v) { return custom(v); },
              [](const std::vector<Tensor>& v) { return relu(v[0] - v[1]); }, {a, b});
}

TEST(MergeTest, ElementwiseLambdaTakesSeveralInputsAndOwnWeights) {
  // TensorLayer's example: a noise sample mean + exp(log_var / 2) * eps with a learned scale.
  nn::ElementwiseLambda sample(
      [](const std::vector<Tensor>& x, const std::vector<Tensor>& w) { return x[0] + exp(x[1] * 0.5) * x[2] * w[0]; },
      {{"scale", tensor({2.0f})}});
  Tensor m = randn({2, 3}), lv = randn({2, 3}), eps = randn({2, 3});
  Tensor y = sample({m, lv, eps});
  EXPECT_TRUE(allclose(y, m + exp(lv * 0.5) * eps * 2.0, 1e-6, 1e-6));
  ASSERT_EQ(sample.trainable_weights().size(), 1u);
  sum(y).backward();
  EXPECT_NEAR(sample.trainable_weights()[0].grad().item<double>(), sum(exp(lv * 0.5) * eps).item<double>(), 1e-4);
  nn::ElementwiseLambda twice([](const std::vector<Tensor>& x, const std::vector<Tensor>&) { return x[0] * 2.0; });
  EXPECT_TRUE(allclose(twice(ones({2})), full({2}, 2.0)));
}

TEST(MergeTest, ErrorsNameTheLayer) {
  nn::Concat cat(-1, "cat");
  cat({randn({2, 3}), randn({2, 4})});
  expect_error([&] { cat({randn({2, 3}), randn({2, 4}), randn({2, 1})}); }, {"cat (concat)", "expected 2 inputs"});
  expect_error([&] { cat({randn({2, 3}), randn({2, 4, 1})}); }, {"cat", "rank 2", "[2, 4, 1]"});
  nn::Elementwise add("add", {}, "sum");
  add({randn({2, 3}), randn({2, 3})});
  EXPECT_EQ(add({randn({5, 3}), randn({5, 3})}).shape(), Shape({5, 3}));  // another batch size is fine
  expect_error([&] { add({randn({2, 3}), randn({2, 4})}); }, {"sum (elementwise)", "[N, 3], [N, 3]", "[2, 4]"});
  expect_error([] { nn::Elementwise("average"); },
               {"(elementwise)", "\"combine\" must be one of add, multiply, maximum, minimum, mean", "\"average\""});
  expect_error([] { nn::Elementwise("add", {}, "one")({randn({2, 3})}); }, {"one", "at least two inputs"});
}

TEST(MergeTest, BranchesMergeInAStaticModel) {
  auto x = nn::Input({-1, 4});
  nn::Dense left(3), right(5);
  auto merged = nn::Concat()({left(x), right(x)});
  EXPECT_EQ(merged.shape(), Shape({-1, 8}));
  auto summed = nn::Elementwise("add")({nn::Dense(2)(merged), nn::Dense(2)(x)});
  nn::Model m(x, summed);
  EXPECT_EQ(m(randn({3, 4})).shape(), Shape({3, 2}));
  EXPECT_EQ(m.trainable_weights().size(), 8u);
}

}  // namespace
}  // namespace strata
