#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(ModelTest, StaticCnnInfersEveryShape) {
  auto x = nn::Input({-1, 28, 28, 1});
  auto h = nn::Conv2d(8, {5, 5}, nn::relu)(x);
  EXPECT_EQ(h.shape(), Shape({-1, 28, 28, 8}));
  h = nn::MaxPool2d({2, 2})(h);
  h = nn::Flatten()(h);
  EXPECT_EQ(h.shape(), Shape({-1, 14 * 14 * 8}));
  h = nn::Dropout(0.5)(nn::Dense(32, nn::relu)(h));
  nn::Model net(x, nn::Dense(10)(h), "cnn");
  EXPECT_EQ(net.name(), "cnn");
  EXPECT_EQ(net.trainable_weights().size(), 6u);  // built at declaration
  EXPECT_EQ(net.count_params(), 5 * 5 * 8 + 8 + 14 * 14 * 8 * 32 + 32 + 32 * 10 + 10);
  Tensor y = net(ones({3, 28, 28, 1}));
  EXPECT_EQ(y.shape(), Shape({3, 10}));
  EXPECT_THROW(net(ones({3, 28, 28, 2})), Error);  // the declared input shape is checked
  net.eval();
  EXPECT_TRUE(allclose(net(ones({2, 28, 28, 1})), net(ones({2, 28, 28, 1})), 0, 0));
}

TEST(ModelTest, SeveralInputsAndOutputs) {
  auto a = nn::Input({-1, 4}, "a");
  auto b = nn::Input({-1, 6}, "b");
  nn::Dense first(5), second(3), side(5);
  auto out_a = second(first(a));
  auto out_b = side(b);
  nn::Model m({a, b}, {out_a, out_b});
  EXPECT_EQ(m.num_inputs(), 2u);
  EXPECT_EQ(m.num_outputs(), 2u);
  Tensor xa = randn({2, 4}), xb = randn({2, 6});
  auto outs = m.run({xa, xb});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(allclose(outs[0], linear(linear(xa, first.W, first.b), second.W, second.b), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(outs[1], linear(xb, side.W, side.b), 1e-5, 1e-6));
  EXPECT_THROW(m.run({xa}), Error);
}

TEST(ModelTest, ReusedLayerSharesWeightsAndSumsGradients) {
  auto x = nn::Input({-1, 4});
  nn::Dense enc(4, nn::tanh);
  auto twice = enc(enc(x));  // the same weights applied twice
  nn::Model m(x, twice);
  EXPECT_EQ(m.trainable_weights().size(), 2u);
  Tensor in = randn({3, 4});
  sum(m(in)).backward();
  // Against the same computation written with the functional API.
  Tensor W = enc.W.detach().requires_grad_(), b = enc.b.detach().requires_grad_();
  sum(tanh(linear(tanh(linear(in, W, b)), W, b))).backward();
  EXPECT_TRUE(allclose(enc.W.grad(), W.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(enc.b.grad(), b.grad(), 1e-5, 1e-6));
}

TEST(ModelTest, ModelNestsAsALayer) {
  auto x = nn::Input({-1, 8});
  nn::Model block(x, nn::Dense(8, nn::relu)(x), "block");
  auto y = nn::Input({-1, 8});
  nn::Model outer(y, nn::Dense(2)(block(y)));
  EXPECT_EQ(outer(ones({5, 8})).shape(), Shape({5, 2}));
  EXPECT_EQ(outer.trainable_weights().size(), 4u);
  EXPECT_NE(outer.summary().find("block"), std::string::npos);
}

TEST(ModelTest, DeclaringRunsLayersOnShapesOnly) {
  // 16 GB of activations if the declaration ran real data through the network.
  auto x = nn::Input({-1, 16384, 16384, 16});
  bool saw_meta = false;
  nn::Lambda spy([&](const Tensor& t) {
    saw_meta = t.is_meta();
    return t;
  });
  auto h = nn::MaxPool2d({2, 2})(nn::Conv2d(16, {3, 3}, nn::relu)(spy(x)));
  EXPECT_TRUE(saw_meta);
  EXPECT_EQ(h.shape(), Shape({-1, 8192, 8192, 16}));
  nn::Model m(x, h);
  EXPECT_EQ(m.count_params(), 3 * 3 * 16 * 16 + 16);  // the weights are real
  EXPECT_FALSE(m.trainable_weights()[0].is_meta());
}

TEST(ModelTest, LayersThatReadDataFallBackToARealProbe) {
  auto x = nn::Input({-1, 3});
  // item() needs a value: this layer has no shape-only path.
  nn::Lambda reads([](const Tensor& t) { return t * sum(t).item<double>() + 1.0; });
  auto y = nn::Dense(2)(reads(x));
  EXPECT_EQ(y.shape(), Shape({-1, 2}));
  nn::Model m(x, y);
  EXPECT_EQ(m(ones({4, 3})).shape(), Shape({4, 2}));
}

TEST(ModelTest, GetLayerByNameAndIndex) {
  auto x = nn::Input({-1, 4});
  auto h = nn::Dense(6, nn::relu, "hidden")(x);
  nn::Model m(x, nn::Dense(2, {}, "logits")(nn::Dropout(0.5, "drop")(h)));
  EXPECT_EQ(m.get_layer(0).name(), "hidden");  // the order the layers run in
  EXPECT_EQ(m.get_layer(1).name(), "drop");
  EXPECT_EQ(m.get_layer(2).name(), "logits");
  EXPECT_EQ(&m.get_layer("logits"), &m.get_layer(2));
  testing::expect_error([&] { m.get_layer(3); }, {"out of range", "3 layers"});
  testing::expect_error([&] { m.get_layer("nope"); }, {"no layer named 'nope'"});
}

TEST(ModelTest, ErrorsNameTheProblem) {
  auto x = nn::Input({-1, 4});
  auto other = nn::Input({-1, 4}, "other");
  auto h = nn::Dense(3)(other);
  EXPECT_THROW(nn::Model(x, h), Error);  // the output does not depend on x
  EXPECT_THROW(nn::Input({2, -1}), Error);
  struct Custom : nn::Layer {
    Custom() : nn::Layer("custom") {}
    Tensor forward(const Tensor& t) override { return t; }
  };
  EXPECT_THROW(Custom()(x), Error);  // not movable: must be a named variable
  Custom named;
  EXPECT_EQ(named(x).shape(), Shape({-1, 4}));
}

}  // namespace
}  // namespace strata
