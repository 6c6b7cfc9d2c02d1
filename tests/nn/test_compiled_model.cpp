// nn::compile (strata/nn/compiled_model.hpp): compiled runs against Model::run in eval mode
// without autograd, on the `make run` CNN and MLP, the zoo, folded batch norms, layers that fall
// back, a second batch shape, and models that cannot be compiled.
#include <gtest/gtest.h>

#include <cmath>

#include "../examples/fashion_mnist_cnn_net.hpp"  // the CNN `make run` trains (found from tests/)
#include "strata/nn/compiled_model.hpp"
#include "strata/nn/eval_scope.hpp"
#include "strata/nn/zoo/zoo.hpp"
#include "support/expect_error.hpp"

namespace strata {
namespace {

std::vector<Tensor> compiled_test_eager(nn::Model& net, const std::vector<Tensor>& xs) {
  NoGradGuard no_grad;
  nn::EvalScope eval(net);
  return net.run(xs);
}

// |compiled - eager| <= rtol * max|eager| elementwise, for every output.
void compiled_test_expect_close(nn::CompiledModel& fast, nn::Model& net, const std::vector<Tensor>& xs, double rtol) {
  const std::vector<Tensor> want = compiled_test_eager(net, xs), got = fast.run(xs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << net.name() << " output " << o;
    const std::vector<double> a = got[o].to_vector<double>(), b = want[o].to_vector<double>();
    double scale = 0, worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, std::abs(b[i]));
      worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    EXPECT_LE(worst, rtol * std::max(scale, 1e-6)) << net.name() << " output " << o << ", max |eager| " << scale;
  }
}

size_t compiled_test_count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Compiled with `options`, whose plan has no line with `absent`: the same outputs.
void compiled_test_variant(nn::Model& net, nn::CompileOptions options, const Shape& shape, const std::string& absent) {
  nn::CompiledModel variant = nn::compile(net, options);
  EXPECT_EQ(compiled_test_count(variant.describe({shape}), absent), 0u);
  compiled_test_expect_close(variant, net, {randn(shape)}, 1e-5);
}

// Batch norms with statistics far from the identity, so that folding them is really tested.
void compiled_test_randomise_batch_norms(nn::Layer& model) {
  NoGradGuard no_grad;
  for (auto& [name, w] : model.named_weights()) {
    const auto ends = [&name = name](const std::string& s) { return name.size() > s.size() && name.ends_with(s); };
    if (ends("moving_var"))
      copy_(w, uniform(w.shape(), 0.5, 2.0));
    else if (ends("moving_mean") || ends("beta"))
      copy_(w, uniform(w.shape(), -0.5, 0.5));
    else if (ends("gamma"))
      copy_(w, uniform(w.shape(), 0.5, 1.5));
  }
}

TEST(CompiledModel, MakeRunCnnMatchesEagerAtTwoBatchShapes) {
  nn::Model net = fashion_mnist_cnn_static();
  nn::CompiledModel fast = nn::compile(net);
  const std::string plan = fast.describe({{1, 28, 28, 1}});
  EXPECT_EQ(compiled_test_count(plan, "fused conv2d"), 2u) << plan;
  EXPECT_EQ(compiled_test_count(plan, "fused dense"), 2u) << plan;
  EXPECT_EQ(compiled_test_count(plan, "fused maxpool2d"), 2u) << plan;
  EXPECT_EQ(compiled_test_count(plan, "view flatten"), 1u) << plan;
  EXPECT_EQ(compiled_test_count(plan, "dropped dropout"), 1u) << plan;
  const Tensor one = rand({1, 28, 28, 1}), eight = rand({8, 28, 28, 1});
  compiled_test_expect_close(fast, net, {one}, 1e-5);
  compiled_test_expect_close(fast, net, {eight}, 1e-5);
  EXPECT_EQ(fast.cached_plans(), 2u);
  // The same shape again: the same plan and its same output buffer, nothing new allocated.
  const void* first = fast.run(one).raw_data();
  EXPECT_EQ(fast.run(rand({1, 28, 28, 1})).raw_data(), first);
  EXPECT_EQ(fast.cached_plans(), 2u);
  compiled_test_expect_close(fast, net, {one}, 1e-5);
}

TEST(CompiledModel, MakeRunMlpMatchesEager) {
  auto x = nn::Input({-1, 784}, "pixels");
  auto h = nn::Dropout(0.1)(x);
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  nn::Model net(x, nn::Dense(10)(h), "mlp_static");
  nn::CompiledModel fast = nn::compile(net);
  EXPECT_EQ(compiled_test_count(fast.describe({{1, 784}}), "fused dense"), 3u);
  compiled_test_expect_close(fast, net, {rand({1, 784})}, 1e-5);
  compiled_test_expect_close(fast, net, {rand({5, 784})}, 1e-5);
}

TEST(CompiledModel, BatchNormFoldsIntoConvolutionAndDense) {
  auto x = nn::Input({-1, 12, 12, 3});
  auto h = nn::BatchNorm2d(0.9, 1e-3, nn::relu)(nn::Conv2d(8, {3, 3}, {}, {.stride = {2}})(x));
  h = nn::BatchNorm2d()(nn::Conv2d(8, {3, 3}, nn::relu)(h));  // after an activation: cannot fold
  h = nn::Flatten()(h);
  h = nn::BatchNorm1d(0.9, 1e-5, nn::tanh)(nn::Dense(16, {}, "", -1, false)(h));  // no bias of its own
  nn::Model net(x, nn::Dense(4, nn::sigmoid)(h), "bn_net");
  compiled_test_randomise_batch_norms(net);
  nn::CompiledModel fast = nn::compile(net);
  const std::string plan = fast.describe({{2, 12, 12, 3}});
  EXPECT_EQ(compiled_test_count(plan, "+ batchnorm"), 2u) << plan;
  EXPECT_EQ(compiled_test_count(plan, "eager batchnorm"), 1u) << plan;
  compiled_test_expect_close(fast, net, {randn({2, 12, 12, 3})}, 1e-5);
  compiled_test_variant(net, {.fold_batch_norm = false}, {2, 12, 12, 3}, "+ batchnorm");
}

TEST(CompiledModel, LayersItDoesNotFuseRunEagerly) {
  auto x = nn::Input({-1, 10, 10, 4});
  auto a = nn::Conv2d(6, {3, 3}, "lrelu0.1")(x);  // an activation no kernel fuses
  auto b = nn::Conv2d(6, {1, 1}, nn::relu)(x);
  auto h = nn::Concat(-1)({a, b});  // several inputs
  h = nn::LayerNorm()(h);
  h = nn::Flatten()(nn::Conv2d(2, {3, 3})(h));
  nn::Model net(x, nn::Dense(3, nn::softmax)(h), "fallbacks");
  nn::CompiledModel fast = nn::compile(net);
  const std::string plan = fast.describe({{3, 10, 10, 4}});
  for (const char* eager : {"eager conv2d", "eager concat", "eager layernorm", "eager dense"})
    EXPECT_EQ(compiled_test_count(plan, eager), 1u) << eager << " in\n" << plan;
  EXPECT_EQ(compiled_test_count(plan, "fused conv2d"), 2u) << plan;
  compiled_test_expect_close(fast, net, {randn({3, 10, 10, 4})}, 1e-5);
  compiled_test_variant(net, {.fuse = false}, {3, 10, 10, 4}, "fused");
}

TEST(CompiledModel, ZooModelsMatchEager) {
  const std::vector<std::pair<std::shared_ptr<nn::Model>, Shape>> zoo = {
      {nn::zoo::resnet50("predictions", {-1, 32, 32, 3}), {2, 32, 32, 3}},
      {nn::zoo::mobilenet_v1("predictions", {-1, 32, 32, 3}), {2, 32, 32, 3}},
      {nn::zoo::squeezenet_v1("out", {-1, 64, 64, 3}), {1, 64, 64, 3}},
      {nn::zoo::vgg16("outputs", {-1, 32, 32, 3}), {1, 32, 32, 3}},
      {nn::zoo::unet("logits", {-1, 32, 32, 1}, {.depth = 2, .width = 8}), {2, 32, 32, 1}}};
  for (const auto& [net, shape] : zoo) {
    SCOPED_TRACE(net->name());
    compiled_test_randomise_batch_norms(*net);
    nn::CompiledModel fast = nn::compile(*net);
    EXPECT_GE(compiled_test_count(fast.describe({shape}), "fused"), 1u);
    // Deep networks add up rounding differently in the inference kernels: relative 1e-4.
    compiled_test_expect_close(fast, *net, {rand(shape)}, 1e-4);
  }
}

TEST(CompiledModel, UncompilableModelsAndBadInputsSayWhy) {
  auto x = nn::Input({-1, 4});
  nn::Model lambda_net(x, nn::Lambda([](const Tensor& t) { return t * 2.0; }, "doubler")(nn::Dense(3)(x)), "lam");
  testing::expect_error([&] { nn::compile(lambda_net); }, {"compile", "lam", "cannot be compiled", "doubler"});
  nn::Model net(x, nn::Dense(3, nn::relu)(x), "small");
  nn::CompiledModel fast = nn::compile(net);
  testing::expect_error([&] { fast.run(zeros({2, 5})); }, {"small", "[-1, 4]", "[2, 5]"});
  testing::expect_error([&] { fast.run(std::vector<Tensor>{}); }, {"small", "expects 1 inputs, got 0"});
  testing::expect_error([&] { fast.run(Tensor()); }, {"small", "undefined"});
}

}  // namespace
}  // namespace strata
