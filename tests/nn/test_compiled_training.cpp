// nn::compile_training (strata/nn/compiled_training.hpp) and fit(compiled=true): the compiled
// step's loss and every weight's gradient against an eager forward and backward() from the same
// random state, on the `make run` CNN and MLP (their dropouts drawing the same masks), batch
// norms in training mode, layers that fall back to autograd, branches whose gradients add up,
// zoo models; two batch shapes; fit trained both ways to the same weights; bad inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "../examples/fashion_mnist_cnn_net.hpp"  // the CNN `make run` trains (found from tests/)
#include "strata/nn/compiled_training.hpp"
#include "strata/nn/zoo/zoo.hpp"
#include "support/expect_error.hpp"

namespace strata {
namespace {

struct TrainTestStep {
  double loss = 0;
  std::vector<Tensor> grads;  // per trainable weight, in trainable_weights() order
};

TrainTestStep train_test_grads(nn::Model& net, double loss) {
  TrainTestStep r{loss, {}};
  for (const Tensor& w : net.trainable_weights())
    r.grads.push_back(w.grad().defined() ? w.grad().clone() : zeros_like(w));
  return r;
}

void train_test_zero_grads(nn::Model& net) {
  for (Tensor w : net.trainable_weights()) w.zero_grad();
}

// One eager step (forward in training mode, softmax cross-entropy, backward) from `seed`.
TrainTestStep train_test_eager(nn::Model& net, const Tensor& x, const Tensor& y, uint64_t seed) {
  train_test_zero_grads(net);
  manual_seed(seed);
  const Tensor loss = cross_entropy(net(x), y);
  loss.backward();
  return train_test_grads(net, loss.item_double());
}

// The same step through the compiled one: the loss's autograd alone, then the planned backward.
TrainTestStep train_test_compiled(nn::CompiledTrainStep& step, nn::Model& net, const Tensor& x, const Tensor& y,
                                  uint64_t seed) {
  train_test_zero_grads(net);
  manual_seed(seed);
  Tensor out = step.forward(x).requires_grad_(true);
  const Tensor loss = cross_entropy(out, y);
  loss.backward();
  step.backward(out.grad());
  return train_test_grads(net, loss.item_double());
}

// |a - b| <= rtol * max|b| for each gradient, and the losses within rtol. A gradient that is
// zero up to rounding (a bias just before a batch norm) is measured against `floor` times the
// largest gradient of the model instead.
void train_test_expect_same(const TrainTestStep& got, const TrainTestStep& want, double rtol, const std::string& what,
                            double floor = 0) {
  EXPECT_NEAR(got.loss, want.loss, rtol * std::max(1.0, std::abs(want.loss))) << what;
  ASSERT_EQ(got.grads.size(), want.grads.size()) << what;
  double largest = 0;
  for (const Tensor& g : want.grads) largest = std::max(largest, amax(abs(g)).item_double());
  for (size_t i = 0; i < want.grads.size(); ++i) {
    ASSERT_EQ(got.grads[i].shape(), want.grads[i].shape()) << what << " weight " << i;
    const std::vector<double> a = got.grads[i].to_vector<double>(), b = want.grads[i].to_vector<double>();
    double scale = 0, worst = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      scale = std::max(scale, std::abs(b[k]));
      worst = std::max(worst, std::abs(a[k] - b[k]));
    }
    EXPECT_GT(scale, 0.0) << what << " weight " << i << ": no gradient reached it";
    EXPECT_LE(worst, rtol * std::max({scale, floor * largest, 1e-12}))
        << what << " weight " << i << " " << want.grads[i].shape().str() << ", max |eager| " << scale;
  }
}

size_t train_test_count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

Tensor train_test_labels(int64_t n, int64_t classes) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back((i * 7 + 3) % classes);
  return from_vector(v, {n});
}

void train_test_compare(nn::Model& net, nn::CompiledTrainStep& step, const Shape& shape, int64_t classes, double rtol,
                        uint64_t seed, double floor = 0) {
  const Tensor x = randn(shape);
  const Tensor y = train_test_labels(shape[0], classes);
  const TrainTestStep want = train_test_eager(net, x, y, seed);
  const TrainTestStep got = train_test_compiled(step, net, x, y, seed);
  train_test_expect_same(got, want, rtol, net.name() + " at " + shape.str(), floor);
}

TEST(CompiledTraining, MakeRunCnnGradientsMatchEagerAtTwoBatchShapes) {
  manual_seed(1);
  nn::Model net = fashion_mnist_cnn_static();
  net.train();
  nn::CompiledTrainStep step = nn::compile_training(net);
  const std::string plan = step.describe({{8, 28, 28, 1}});
  EXPECT_EQ(train_test_count(plan, "fused conv2d"), 2u) << plan;
  EXPECT_EQ(train_test_count(plan, "fused dense"), 2u) << plan;
  EXPECT_EQ(train_test_count(plan, "fused maxpool2d"), 2u) << plan;
  EXPECT_EQ(train_test_count(plan, "view flatten"), 1u) << plan;
  EXPECT_EQ(train_test_count(plan, "eager dropout"), 1u) << plan;
  train_test_compare(net, step, {8, 28, 28, 1}, 10, 1e-5, 11);
  train_test_compare(net, step, {3, 28, 28, 1}, 10, 1e-5, 12);
  EXPECT_EQ(step.cached_plans(), 2u);
  // The first shape again: its plan, the gradients again, and the weights' .grad is the plan's.
  train_test_compare(net, step, {8, 28, 28, 1}, 10, 1e-5, 13);
  EXPECT_EQ(step.cached_plans(), 2u);
}

TEST(CompiledTraining, GradientsAddUpAcrossBackwardPasses) {
  // Two passes without zero_grad in between (gradient accumulation): the second adds to the
  // .grad the first set, through the kernels' accumulating paths (a reorder or a matmul with a
  // sum post-op), as eager backward() adds.
  manual_seed(2);
  nn::Model net = fashion_mnist_cnn_static();
  net.train();
  nn::CompiledTrainStep step = nn::compile_training(net);
  const Tensor x1 = randn({6, 28, 28, 1}), x2 = randn({6, 28, 28, 1}), y = train_test_labels(6, 10);
  train_test_zero_grads(net);
  for (const auto& [x, seed] : {std::pair{x1, 31}, std::pair{x2, 32}}) {
    manual_seed(seed);
    cross_entropy(net(x), y).backward();
  }
  const TrainTestStep want = train_test_grads(net, 0);
  train_test_zero_grads(net);
  for (const auto& [x, seed] : {std::pair{x1, 31}, std::pair{x2, 32}}) {
    manual_seed(seed);
    Tensor out = step.forward(x).requires_grad_(true);
    cross_entropy(out, y).backward();
    step.backward(out.grad());
  }
  train_test_expect_same(train_test_grads(net, 0), want, 1e-5, "two passes");
}

TEST(CompiledTraining, MakeRunMlpGradientsMatchEager) {
  auto x = nn::Input({-1, 784}, "pixels");
  auto h = nn::Dropout(0.1)(x);
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  nn::Model net(x, nn::Dense(10)(h), "mlp_static");
  net.train();
  nn::CompiledTrainStep step = nn::compile_training(net);
  EXPECT_EQ(train_test_count(step.describe({{16, 784}}), "fused dense"), 3u);
  train_test_compare(net, step, {16, 784}, 10, 1e-5, 3);
  train_test_compare(net, step, {5, 784}, 10, 1e-5, 4);
}

TEST(CompiledTraining, BatchNormsBranchesAndOtherLayersMatchEager) {
  auto x = nn::Input({-1, 12, 12, 3});
  auto h =
      nn::BatchNorm2d(0.9, 1e-3, nn::relu)(nn::Conv2d(8, {3, 3}, {}, {.stride = {2}}, "", -1, false)(x));  // no bias
  h = nn::MeanPool2d({3, 3}, {.stride = {1}, .padding = Padding::same()})(h);  // averages without the padding
  auto a = nn::Conv2d(6, {3, 3}, nn::tanh)(h);                                 // h read three times: gradients add
  auto b = nn::Conv2d(6, {1, 1}, "lrelu0.1")(h);                               // an activation no kernel runs
  auto c = nn::Conv2d(4, {3, 3}, nn::sigmoid)(h);
  h = nn::Concat(-1)(std::vector<nn::Symbol>{a, b, c});
  // Strided: its input's gradient from oneDNN's backward-data primitive (stride 1 runs it as a
  // forward convolution of flipped weights).
  h = nn::Conv2d(8, {3, 3}, nn::relu, {.stride = {2}, .padding = Padding::same()})(h);
  h = nn::MaxPool2d()(h);  // 3x3 input: not the tiling 2x2 pool, oneDNN's, the relu's backward after it
  h = nn::Flatten()(nn::LayerNorm()(h));
  h = nn::BatchNorm1d(0.9, 1e-5, nn::tanh)(nn::Dense(16, {}, "", -1, false)(h));  // no bias
  nn::Model net(x, nn::Dense(5, nn::sigmoid)(h), "mixed");
  net.train();
  nn::CompiledTrainStep step = nn::compile_training(net);
  const std::string plan = step.describe({{4, 12, 12, 3}});
  for (const char* eager : {"eager batchnorm", "eager conv2d", "eager concat", "eager layernorm", "eager flatten"})
    EXPECT_GE(train_test_count(plan, eager), 1u) << eager << " in\n" << plan;
  EXPECT_EQ(train_test_count(plan, "fused conv2d"), 4u) << plan;
  EXPECT_EQ(train_test_count(plan, "fused meanpool2d"), 1u) << plan;
  EXPECT_EQ(train_test_count(plan, "fused maxpool2d"), 1u) << plan;
  EXPECT_EQ(train_test_count(plan, "+ the relu backward of conv2d"), 1u) << plan;
  EXPECT_EQ(train_test_count(plan, "fused dense"), 2u) << plan;
  // The layer norm's gain has gradients near rounding (~1e-8 of the largest, through the batch
  // norm's centring): gradients are compared within 1e-6 of the model's largest, 1e-5 of their own.
  train_test_compare(net, step, {8, 12, 12, 3}, 5, 1e-5, 5, 0.1);
  train_test_compare(net, step, {5, 12, 12, 3}, 5, 1e-5, 6, 0.1);
}

TEST(CompiledTraining, ZooModelsMatchEager) {
  const std::vector<std::pair<std::shared_ptr<nn::Model>, Shape>> zoo = {
      {nn::zoo::resnet50("predictions", {-1, 32, 32, 3}), {2, 32, 32, 3}},  // merges: gradients add up
      {nn::zoo::mobilenet_v1("predictions", {-1, 32, 32, 3}), {2, 32, 32, 3}},
      {nn::zoo::vgg16("outputs", {-1, 32, 32, 3}), {2, 32, 32, 3}},
      {nn::zoo::unet("logits", {-1, 32, 32, 1}, {.depth = 2, .width = 8}), {2, 32, 32, 1}}};
  for (const auto& [net, shape] : zoo) {
    SCOPED_TRACE(net->name());
    net->train();
    nn::CompiledTrainStep step = nn::compile_training(*net);
    EXPECT_GE(train_test_count(step.describe({shape}), "fused"), 1u);
    const Tensor x = rand(shape);
    manual_seed(9);
    Tensor out = (*net)(x);
    // Any output shape: the loss is a fixed random projection of the outputs.
    const Tensor proj = randn(out.shape());
    train_test_zero_grads(*net);
    (out * proj).sum().backward();
    const TrainTestStep want = train_test_grads(*net, 0);
    train_test_zero_grads(*net);
    manual_seed(9);
    step.forward(x);
    step.backward(proj);
    train_test_expect_same(train_test_grads(*net, 0), want, 1e-4, net->name());
  }
}

TEST(CompiledTraining, FitCompiledTrainsToTheSameWeightsAsEagerFit) {
  manual_seed(7);
  nn::Model eager_net = fashion_mnist_cnn_static();
  nn::Model compiled_net = fashion_mnist_cnn_static();
  {
    NoGradGuard no_grad;
    const std::vector<Tensor> from = eager_net.trainable_weights(), to = compiled_net.trainable_weights();
    ASSERT_EQ(from.size(), to.size());
    for (size_t i = 0; i < from.size(); ++i) {
      Tensor t = to[i];
      copy_(t, from[i]);
    }
  }
  const Tensor x = rand({40, 28, 28, 1});
  const Tensor y = train_test_labels(40, 10);
  // SGD with momentum: its steps are linear in the gradients, so rounding stays rounding (Adam's
  // steps are up to lr wherever a gradient is rounding-sized, whatever its value).
  // Two epochs of batches of 16, 16 and 8 (a second batch shape: a second plan), the second
  // epoch with two batches a step (gradient accumulation across the two shapes' plans).
  const auto train = [&](nn::Model& net, bool compiled) {
    optim::SGD sgd(net.trainable_weights(), {.lr = 0.05, .momentum = 0.9});
    manual_seed(21);
    train::History h = train::fit(net, sgd, {}, {x, y},
                                  {.epochs = 1, .batch_size = 16, .compiled = compiled, .seed = 3, .verbose = 0});
    h.append(train::fit(net, sgd, {}, {x, y},
                        {.epochs = 1,
                         .batch_size = 16,
                         .gradient_accumulation_steps = 2,
                         .compiled = compiled,
                         .seed = 4,
                         .verbose = 0})
                 .at(0));
    return h;
  };
  const train::History eager_history = train(eager_net, false);
  const train::History compiled_history = train(compiled_net, true);
  const std::vector<Tensor> a = eager_net.trainable_weights(), b = compiled_net.trainable_weights();
  for (size_t i = 0; i < a.size(); ++i) {
    const std::vector<double> u = a[i].to_vector<double>(), v = b[i].to_vector<double>();
    double scale = 0, worst = 0;
    for (size_t k = 0; k < u.size(); ++k) {
      scale = std::max(scale, std::abs(u[k]));
      worst = std::max(worst, std::abs(u[k] - v[k]));
    }
    // Five steps from gradients equal to ~1e-6: the weights within 1e-5 of their scale.
    EXPECT_LE(worst, 1e-5 * scale) << "weight " << i << " " << a[i].shape().str();
  }
  EXPECT_NEAR(compiled_history["loss"].back(), eager_history["loss"].back(), 1e-5);
}

TEST(CompiledTraining, BadInputsAndModelsSayWhy) {
  auto x = nn::Input({-1, 4});
  nn::Model net(x, nn::Dense(3, nn::relu)(x), "small");
  nn::CompiledTrainStep step = nn::compile_training(net);
  testing::expect_error([&] { step.forward(zeros({2, 5})); }, {"small", "[-1, 4]", "[2, 5]"});
  testing::expect_error([&] { step.forward(std::vector<Tensor>{}); }, {"small", "expects 1 inputs, got 0"});
  testing::expect_error([&] { step.forward(Tensor()); }, {"small", "undefined"});
  testing::expect_error([&] { step.backward(zeros({2, 3})); }, {"small", "forward first"});
  step.forward(zeros({2, 4}));
  testing::expect_error([&] { step.backward(zeros({2, 4})); }, {"small", "[2, 3]", "[2, 4]"});
  nn::Model lambda_net(x, nn::Lambda([](const Tensor& t) { return t * 2.0; }, "doubler")(nn::Dense(3)(x)), "lam");
  testing::expect_error([&] { nn::compile_training(lambda_net); }, {"lam", "cannot be compiled", "doubler"});
  // fit(compiled=true) on a layer that is not a static model.
  nn::Dense dense(3);
  dense(zeros({1, 4}));
  optim::Adam adam(dense.trainable_weights());
  testing::expect_error(
      [&] {
        train::fit(dense, adam, {}, {zeros({4, 4}), train_test_labels(4, 3)}, {.compiled = true, .verbose = 0});
      },
      {"compiled=true", "static model"});
}

}  // namespace
}  // namespace strata
