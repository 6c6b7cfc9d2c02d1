// FitOptions::class_weight (Keras's): each training row's cross-entropy weighted by its class,
// then averaged over the batch's rows. Checked through plain SGD steps, whose size the weights
// scale exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "blobs.hpp"
#include "strata/core/error.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/loss.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"

namespace strata::train {
namespace {

using testing::copy_weights;
using testing::expect_weights_near;
using testing::make_blobs;
using testing::make_classifier;

// One epoch of plain SGD on `x`, `y` in a single batch, from `start`'s weights.
std::unique_ptr<nn::Sequential> one_step(const nn::Layer& start, const Tensor& x, const Tensor& y, double lr,
                                         std::vector<double> class_weight = {}) {
  auto net = make_classifier();
  copy_weights(start, *net);
  optim::SGD sgd(net->trainable_weights(), {.lr = lr});
  fit(*net, sgd, {}, {x, y}, {.batch_size = x.size(0), .class_weight = std::move(class_weight), .verbose = 0});
  return net;
}

TEST(ClassWeightTest, EqualWeightsScaleTheStep) {
  const auto blobs = make_blobs(32, 31);
  manual_seed(11);
  const auto start = make_classifier();
  expect_weights_near(*one_step(*start, blobs.x, blobs.y, 0.1, {2, 2}), *one_step(*start, blobs.x, blobs.y, 0.2), 1e-6);
}

// Weights {1, 0}: only class 0's rows pull, and the mean still divides by all n rows, so the step
// is the step on class 0's rows alone with the learning rate times n0 / n.
TEST(ClassWeightTest, AClassOfWeightZeroDoesNotPull) {
  const auto blobs = make_blobs(40, 32);
  manual_seed(12);
  const auto start = make_classifier();
  std::vector<int64_t> class0;
  const auto labels = blobs.y.to_vector<int64_t>();
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == 0) class0.push_back(static_cast<int64_t>(i));
  ASSERT_GT(class0.size(), 5u);
  ASSERT_LT(class0.size(), 35u);
  const Tensor rows = from_vector(class0);
  const double share = static_cast<double>(class0.size()) / 40;
  expect_weights_near(*one_step(*start, blobs.x, blobs.y, 0.1, {1, 0}),
                      *one_step(*start, index_select(blobs.x, 0, rows), index_select(blobs.y, 0, rows), 0.1 * share),
                      1e-6);
}

TEST(ClassWeightTest, RefusesWhatItCannotWeigh) {
  const auto blobs = make_blobs(16, 33);
  auto net = make_classifier();
  optim::SGD sgd(net->trainable_weights());
  const Data data(blobs.x, blobs.y);
  EXPECT_THROW(fit(*net, sgd, {}, data, {.class_weight = {1, -1}, .verbose = 0}), Error);
  EXPECT_THROW(fit(*net, sgd, {}, data, {.class_weight = {1, std::nan("")}, .verbose = 0}), Error);
  EXPECT_THROW(fit(*net, sgd, {}, data, {.class_weight = {1}, .verbose = 0}), Error);  // class 1 has none
  LossFn own = [](const Tensor& out, const Tensor& t) { return cross_entropy(out, t); };
  EXPECT_THROW(fit(*net, sgd, own, data, {.class_weight = {1, 1}, .verbose = 0}), Error);
  const Data one_hot(blobs.x, cast(blobs.y, kFloat32).unsqueeze(1).expand({16, 2}));
  EXPECT_THROW(fit(*net, sgd, {}, one_hot, {.class_weight = {1, 1}, .verbose = 0}), Error);
}

}  // namespace
}  // namespace strata::train
