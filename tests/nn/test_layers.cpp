#include <gtest/gtest.h>

#include "strata/nn/nn.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// The user code DESIGN.md aims for: no input sizes, no registration.
struct MLP : nn::Module {
  nn::Dense a{32, nn::relu}, b{16, "relu"}, out{10};
  nn::Dropout drop{0.5};
  Tensor forward(const Tensor& x) override { return out(drop(b(drop(a(x))))); }
};

struct Outer : nn::Module {
  MLP body;
  nn::Dense head{3};
  Tensor forward(const Tensor& x) override { return head(body(x)); }
};

TEST(LayerTest, DenseInfersItsInputSize) {
  nn::Dense d(5);
  EXPECT_FALSE(d.built());
  Tensor y = d(ones({4, 7}));
  EXPECT_EQ(y.shape(), Shape({4, 5}));
  EXPECT_EQ(d.W.shape(), Shape({7, 5}));  // TensorLayer's [in, out]
  EXPECT_EQ(d.b.shape(), Shape({5}));
  EXPECT_TRUE(allclose(y, matmul(ones({4, 7}), d.W) + d.b, 1e-6, 1e-6));
}

TEST(LayerTest, WrongInputAfterBuildNamesTheLayer) {
  nn::Dense d(5, {}, "classifier");
  d(ones({2, 7}));
  try {
    d(ones({2, 8}));
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("classifier"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 8]"), std::string::npos) << msg;
  }
  nn::Dense declared(5, {}, "", /*in_units=*/3);
  EXPECT_THROW(declared(ones({2, 4})), Error);
  nn::Conv2d conv(4);
  EXPECT_THROW(conv(ones({2, 8})), Error);  // wrong rank
}

TEST(LayerTest, NamesAreUniqueUnlessGiven) {
  nn::Dense a(2), b(2), c(2, {}, "mine");
  EXPECT_NE(a.name(), b.name());
  EXPECT_EQ(a.name().rfind("dense_", 0), 0u);
  EXPECT_EQ(c.name(), "mine");
}

TEST(LayerTest, ModulesFindTheirLayersWithoutRegistration) {
  MLP m;
  m(ones({2, 20}));
  EXPECT_EQ(m.children().size(), 4u);  // a, drop, b, out (drop called twice, counted once)
  EXPECT_EQ(m.trainable_weights().size(), 6u);
  EXPECT_EQ(m.count_params(), 20 * 32 + 32 + 32 * 16 + 16 + 16 * 10 + 10);
  Outer o;
  o(ones({2, 20}));
  EXPECT_EQ(o.all_weights().size(), 8u);
  EXPECT_NE(o.find(o.body.a.name()), nullptr);
  auto named = o.named_weights();
  EXPECT_EQ(named.front().first, o.body.a.name() + "/W");
  std::string s = o.summary();
  EXPECT_NE(s.find(o.head.name()), std::string::npos);
  EXPECT_NE(s.find("Total params: " + std::to_string(o.count_params())), std::string::npos);
}

TEST(LayerTest, TrainAndEvalReachCalledLayers) {
  MLP m;
  Tensor x = ones({64, 20});
  m.eval();
  Tensor y1 = m(x), y2 = m(x);
  EXPECT_TRUE(allclose(y1, y2, 0, 0));  // dropout off
  EXPECT_FALSE(m.drop.training());
  m.train();
  Tensor y3 = m(x), y4 = m(x);
  EXPECT_FALSE(allclose(y3, y4, 0, 0));  // dropout draws new masks
  EXPECT_TRUE(m.drop.training());
}

TEST(LayerTest, SharedLayerSumsGradientsOfBothUses) {
  // A siamese pair: one Dense applied to two inputs is one set of weights.
  struct Siamese : nn::Module {
    nn::Dense enc{3};
    Tensor left, right;
    Tensor forward(const Tensor& x) override { return enc(left) + enc(x); }
  } net;
  Tensor l = randn({2, 4}), r = randn({2, 4});
  net.left = l;
  Tensor loss = sum(net(r));
  EXPECT_EQ(net.trainable_weights().size(), 2u);
  loss.backward();
  // d/dW sum(l W + r W + 2b) = (l + r)^T 1
  Tensor expected = matmul((l + r).transpose(0, 1), ones({2, 3}));
  EXPECT_TRUE(allclose(net.enc.W.grad(), expected, 1e-5, 1e-5));
  EXPECT_TRUE(allclose(net.enc.b.grad(), full({3}, 4.0), 1e-6, 1e-6));
}

TEST(LayerTest, ConvAndPoolInferShapes) {
  nn::Sequential net({std::make_shared<nn::Conv2d>(8, SpatialSizes{5, 5}, nn::relu),
                      std::make_shared<nn::MaxPool2d>(), std::make_shared<nn::Flatten>(),
                      std::make_shared<nn::Dense>(10)});
  Tensor y = net(ones({2, 28, 28, 1}));
  EXPECT_EQ(y.shape(), Shape({2, 10}));
  auto& conv = dynamic_cast<nn::Conv2d&>(net[0]);
  EXPECT_EQ(conv.W.shape(), Shape({5, 5, 1, 8}));  // [kh, kw, in, out]
  EXPECT_EQ(dynamic_cast<nn::Dense&>(net[3]).W.shape(), Shape({14 * 14 * 8, 10}));
  EXPECT_EQ(net.all_weights().size(), 4u);
}

TEST(LayerTest, ActivationsByName) {
  Tensor x = tensor({-2.0f, 3.0f});
  EXPECT_TRUE(allclose(nn::Activation("lrelu0.1")(x), tensor({-0.2f, 3.0f})));
  EXPECT_TRUE(allclose(nn::Activation("relu")(x), tensor({0.0f, 3.0f})));
  EXPECT_TRUE(allclose(nn::Activation("linear")(x), x));
  EXPECT_TRUE(allclose(nn::Activation(nn::tanh)(x), tanh(x)));
  EXPECT_THROW(nn::Activation("relu7"), Error);
  EXPECT_THROW(nn::Activation("lreluX"), Error);
}

TEST(LayerTest, LambdaWrapsFunctionsAndTrainsItsWeights) {
  nn::Lambda scale([](const Tensor& x, const std::vector<Tensor>& w) { return x * w[0]; },
                   {{"alpha", tensor({2.0f})}});
  Tensor y = scale(tensor({1.0f, 3.0f}));
  EXPECT_TRUE(allclose(y, tensor({2.0f, 6.0f})));
  sum(y).backward();
  EXPECT_FLOAT_EQ(scale.trainable_weights()[0].grad().item<float>(), 4.0f);
  nn::Lambda twice([](const Tensor& x) { return x * 2.0; });
  EXPECT_TRUE(allclose(twice(ones({2})), full({2}, 2.0)));
  EXPECT_TRUE(twice.all_weights().empty());
}

TEST(InitializerTest, DistributionsHaveTheirMoments) {
  manual_seed(3);
  Tensor g = nn::glorot_uniform()({400, 600}, nullptr);
  double limit = std::sqrt(6.0 / 1000);
  EXPECT_LE(amax(abs(g)).item<double>(), limit);
  EXPECT_NEAR(var(g).item<double>(), limit * limit / 3, 1e-4);
  Tensor h = nn::he_normal()({3, 3, 64, 32}, nullptr);
  EXPECT_NEAR(std(h).item<double>(), std::sqrt(2.0 / (9 * 64)), 2e-3);
  Tensor t = nn::truncated_normal(0, 1)({10000}, nullptr);
  EXPECT_LE(amax(abs(t)).item<double>(), 2.0);
  Tensor q = nn::orthogonal()({50, 20}, nullptr);
  EXPECT_TRUE(allclose(matmul(q.transpose(0, 1), q), eye(20), 1e-4, 1e-4));
  EXPECT_TRUE(allclose(nn::constant_init(0.5)({3}, nullptr), full({3}, 0.5)));
}

}  // namespace
}  // namespace strata
