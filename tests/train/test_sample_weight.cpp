// Sample weights (Keras's sample_weight): a third tensor in the training data weighs each row's
// cross-entropy, then the mean divides by the rows. Checked through plain SGD steps, whose size
// the weights scale exactly, against the same rows trained without weights.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "blobs.hpp"
#include "support/expect_error.hpp"
#include "strata/core/error.hpp"
#include "strata/data/dataset.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/loss.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"

namespace strata::train {
namespace {

using strata::testing::expect_error;
using testing::copy_weights;
using testing::expect_weights_near;
using testing::make_blobs;
using testing::make_classifier;

// Plain SGD on `data` from `start`'s weights, one epoch in batches of `batch_size`, in the rows'
// order unless `shuffle`.
std::unique_ptr<nn::Sequential> trained(const nn::Layer& start, const Data& data, int64_t batch_size,
                                        FitOptions options = {}, bool shuffle = false) {
  auto net = make_classifier();
  copy_weights(start, *net);
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  options.batch_size = batch_size;
  options.shuffle = shuffle;
  options.verbose = 0;
  fit(*net, sgd, {}, data, options);
  return net;
}

// The rows of t at even positions.
Tensor even_rows(const Tensor& t) {
  std::vector<int64_t> even;
  for (int64_t i = 0; i < t.size(0); i += 2) even.push_back(i);
  return index_select(t, 0, from_vector(even));
}

// Weights 2 on the even rows and 0 on the odd ones: the mean over all n rows of the weighted
// losses is the plain mean over the n / 2 even rows, so the step is the step on those rows alone.
TEST(SampleWeightTest, WeightsOfTwoAndZeroStepAsTheWeightedRowsAlone) {
  const auto blobs = make_blobs(40, 41);
  manual_seed(21);
  const auto start = make_classifier();
  std::vector<float> w(40);
  for (size_t i = 0; i < w.size(); ++i) w[i] = i % 2 == 0 ? 2.0f : 0.0f;
  const Tensor weights = from_vector(w);
  expect_weights_near(*trained(*start, {blobs.x, blobs.y, weights}, 40),
                      *trained(*start, {even_rows(blobs.x), even_rows(blobs.y)}, 20), 1e-6);
  // In batches of 10 the same holds batch by batch (each batch of 10 holds 5 even rows).
  expect_weights_near(*trained(*start, {blobs.x, blobs.y, weights}, 10),
                      *trained(*start, {even_rows(blobs.x), even_rows(blobs.y)}, 5), 1e-6);
}

TEST(SampleWeightTest, MultiplyClassWeightsAndComeFromDatasetsAndShuffledPasses) {
  const auto blobs = make_blobs(32, 42);
  manual_seed(22);
  const auto start = make_classifier();
  // Each row weighted by its class's weight is class_weight.
  const std::vector<double> by_class = {0.5, 3.0};
  std::vector<float> w;
  for (int64_t label : blobs.y.to_vector<int64_t>()) w.push_back(static_cast<float>(by_class[label]));
  const Tensor weights = from_vector(w);
  const auto with_class_weight = trained(*start, {blobs.x, blobs.y}, 32, {.class_weight = by_class});
  expect_weights_near(*trained(*start, {blobs.x, blobs.y, weights}, 32), *with_class_weight, 1e-6);
  // Both at once multiply: class weights 2 and sample weights 1/2 cancel.
  expect_weights_near(*trained(*start, {blobs.x, blobs.y, full({32}, 0.5)}, 32, {.class_weight = {2, 2}}),
                      *trained(*start, {blobs.x, blobs.y}, 32), 1e-6);
  // Examples (x, y, w) of a Dataset, and a shuffled pass (one batch: the same rows in another order).
  expect_weights_near(*trained(*start, data::TensorDataset({blobs.x, blobs.y, weights}), 32), *with_class_weight,
                      1e-6);
  expect_weights_near(*trained(*start, {blobs.x, blobs.y, weights}, 32, {}, /*shuffle=*/true), *with_class_weight,
                      1e-6);
}

TEST(SampleWeightTest, AValidationSplitKeepsEachRowsWeight) {
  const auto blobs = make_blobs(40, 43);
  manual_seed(23);
  const auto start = make_classifier();
  const Tensor weights = rand({40}) * 2.0;
  expect_weights_near(*trained(*start, {blobs.x, blobs.y, weights}, 10, {.validation_split = 0.25}),
                      *trained(*start, {blobs.x.narrow(0, 0, 30), blobs.y.narrow(0, 0, 30), weights.narrow(0, 0, 30)},
                               10),
                      1e-6);
}

// evaluate, and so fit's validation, weigh the loss by the data's sample weights (the mean over
// the rows, as in training); metrics are not weighted (Keras's metrics, not weighted_metrics).
TEST(SampleWeightTest, EvaluateAndValidationWeighTheLossNotTheMetrics) {
  const auto blobs = make_blobs(40, 45);
  manual_seed(24);
  auto net = make_classifier();
  std::vector<float> w(40);
  for (size_t i = 0; i < w.size(); ++i) w[i] = i % 2 == 0 ? 2.0f : 0.0f;
  const Data weighted(blobs.x, blobs.y, from_vector(w));
  const Logs logs = evaluate(*net, {}, weighted, 40);
  EXPECT_NEAR(logs.at("loss"), evaluate(*net, {}, even_rows(blobs.x), even_rows(blobs.y), 40).at("loss"), 1e-6);
  EXPECT_DOUBLE_EQ(logs.at("accuracy"), evaluate(*net, {}, blobs.x, blobs.y, 40).at("accuracy"));
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  const History h = fit(*net, sgd, {}, {blobs.x, blobs.y},
                        {.batch_size = 8, .validation_data = weighted, .verbose = 0});
  EXPECT_NEAR(h["val_loss"].back(), evaluate(*net, {}, weighted, 8).at("loss"), 1e-6);
  LossFn own = [](const Tensor& out, const Tensor& t) { return cross_entropy(out, t); };
  expect_error([&] { evaluate(*net, own, weighted); }, {"evaluate", "rows cannot be weighed"});
}

// A loss function that returns one loss per example (Keras's losses; Reduction::none) is
// weighed like the default loss: per-example cross-entropy gives the default's steps, and a
// per-example squared error is weighed row by row as its formula says.
TEST(SampleWeightTest, ALossFunctionOfOneLossPerExampleIsWeighedToo) {
  const auto blobs = make_blobs(24, 46);
  manual_seed(25);
  const auto start = make_classifier();
  const Tensor weights = rand({24}) * 2.0;
  LossFn per_example = [](const Tensor& out, const Tensor& t) { return cross_entropy(out, t, Reduction::none); };
  const auto trained_with = [&](const LossFn& loss, FitOptions options) {
    auto net = make_classifier();
    copy_weights(*start, *net);
    optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
    options.batch_size = 24;
    options.shuffle = false;
    options.verbose = 0;
    fit(*net, sgd, loss, {blobs.x, blobs.y, weights}, options);
    return net;
  };
  expect_weights_near(*trained_with(per_example, {.class_weight = {0.5, 2}}),
                      *trained_with({}, {.class_weight = {0.5, 2}}), 1e-6);
  // Squared error per example against one-hot rows, weighed: its evaluate loss, worked out here.
  LossFn squared = [](const Tensor& out, const Tensor& t) {
    return sum(square(out - one_hot(t, 2)), {1});  // [N]
  };
  auto judged = make_classifier();
  copy_weights(*start, *judged);
  const Tensor outputs = predict(*judged, blobs.x);
  const auto out = outputs.to_vector<double>(), w = weights.to_vector<double>();
  const auto labels = blobs.y.to_vector<int64_t>();
  double expected = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    double row = 0;
    for (int64_t c = 0; c < 2; ++c) row += std::pow(out[i * 2 + c] - (labels[i] == c ? 1.0 : 0.0), 2);
    expected += w[i] * row / 24;
  }
  EXPECT_NEAR(evaluate(*judged, squared, {blobs.x, blobs.y, weights}, 24).at("loss"), expected, 1e-5);
}

TEST(SampleWeightTest, RefusesWhatItCannotWeigh) {
  const auto blobs = make_blobs(16, 44);
  auto net = make_classifier();
  optim::SGD sgd(net->trainable_weights());
  const FitOptions quiet{.verbose = 0};
  expect_error([&] { Data(blobs.x, blobs.y, ones({15})); }, {"one weight per example"});
  expect_error([&] { Data(blobs.x, blobs.y, ones({16, 1})); }, {"one weight per example"});
  const auto fit_with = [&](const Tensor& w, const LossFn& loss = {}) {
    fit(*net, sgd, loss, {blobs.x, blobs.y, w}, quiet);
  };
  Tensor negative = ones({16});
  negative.data<float>()[3] = -1;
  expect_error([&] { fit_with(negative); }, {"finite and >= 0, got -1"});
  Tensor not_a_number = ones({16});
  not_a_number.data<float>()[0] = std::nanf("");
  expect_error([&] { fit_with(not_a_number); }, {"finite and >= 0"});
  expect_error([&] { fit_with(ones({16}, kInt64)); }, {"floating point"});
  LossFn own = [](const Tensor& out, const Tensor& t) { return cross_entropy(out, t); };
  expect_error([&] { fit_with(ones({16}), own); }, {"returns a scalar, so the rows cannot be weighed"});
  // A Dataset whose third tensors are not one scalar per example.
  expect_error([&] { fit(*net, sgd, {}, data::TensorDataset({blobs.x, blobs.y, ones({16, 2})}), quiet); },
               {"one per example"});
}

}  // namespace
}  // namespace strata::train
