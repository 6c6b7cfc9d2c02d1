// fit / evaluate / predict on two Gaussian blobs: training reaches high accuracy with a falling
// loss, from tensors and from a Dataset; evaluate and predict run batched, in eval mode.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "blobs.hpp"
#include "support/expect_error.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/loss.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/optim/adam.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/confusion_matrix.hpp"
#include "strata/train/fit.hpp"

namespace strata::train {
namespace {

using testing::copy_weights;
using testing::make_blobs;
using testing::make_classifier;

TEST(FitTest, LearnsTwoBlobsAndTheLossFalls) {
  manual_seed(1);
  const auto train = make_blobs(256, 1), val = make_blobs(128, 2);
  auto net = make_classifier();
  optim::Adam adam(net->trainable_weights(), {.lr = 0.02});
  std::ostringstream bar;
  const History h = fit(*net, adam, {}, {train.x, train.y},
                        {.epochs = 8, .batch_size = 32, .validation_data = {val.x, val.y}, .out = &bar});
  ASSERT_EQ(h.epochs(), 8);
  EXPECT_LT(h["loss"].back(), 0.5 * h["loss"].front());
  EXPECT_LT(h["val_loss"].back(), h["val_loss"].front());
  EXPECT_GT(h["accuracy"].back(), 0.95);
  EXPECT_GT(h["val_accuracy"].back(), 0.95);
  EXPECT_DOUBLE_EQ(h["lr"][3], 0.02);
  EXPECT_NE(bar.str().find("epoch 8/8"), std::string::npos);
  EXPECT_NE(bar.str().find("val_accuracy"), std::string::npos);
  // The last epoch's validation numbers are what evaluate reports for the trained model.
  const Logs logs = evaluate(*net, {}, val.x, val.y, 50);
  EXPECT_NEAR(logs.at("loss"), h["val_loss"].back(), 1e-5);
  EXPECT_DOUBLE_EQ(logs.at("accuracy"), h["val_accuracy"].back());
  EXPECT_TRUE(net->training());  // fit leaves the model in train mode
}

TEST(FitTest, PredictOnADatasetOrAStreamGivesEachExamplesOutputsInOrder) {
  manual_seed(6);
  const auto blobs = make_blobs(45, 8);
  auto net = make_classifier(/*dropout=*/0.5);
  const Tensor expected = predict(*net, blobs.x, 10);
  const auto expect_same = [&](const Tensor& got, const char* what) {
    ASSERT_EQ(got.shape(), expected.shape()) << what;
    EXPECT_EQ(got.to_vector<float>(), expected.to_vector<float>()) << what;  // same batches, eval mode
  };
  expect_same(predict(*net, data::TensorDataset({blobs.x, blobs.y}), 10), "dataset of (x, y)");
  expect_same(predict(*net, data::TensorDataset({blobs.x}), 10), "dataset of x alone");
  std::vector<data::Example> rows;
  for (int64_t i = 0; i < blobs.x.size(0); ++i) rows.push_back({blobs.x.select(0, i)});
  expect_same(predict(*net, data::Stream::from_examples(rows), 10), "stream of x alone");
  EXPECT_TRUE(net->training());  // the mode is restored
  // Examples without targets cannot be trained or evaluated on: the error says so.
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  strata::testing::expect_error([&] { fit(*net, sgd, {}, data::TensorDataset({blobs.x}), {.verbose = 0}); },
                                {"fit", "no targets"});
  EXPECT_THROW(evaluate(*net, {}, data::TensorDataset({blobs.x})), Error);
  EXPECT_THROW(predict(*net, data::TensorDataset({blobs.x.narrow(0, 0, 0)}), 10), Error);  // no examples
  EXPECT_THROW(predict(*net, data::TensorDataset({blobs.x}), 0), Error);
}

TEST(FitTest, TrainsOnADatasetWithAValidationSplit) {
  manual_seed(2);
  const auto blobs = make_blobs(300, 3);
  auto net = make_classifier();
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1, .momentum = 0.9});
  const History h = fit(*net, sgd, {}, data::TensorDataset({blobs.x, blobs.y}),
                        {.epochs = 5, .batch_size = 20, .validation_split = 0.2, .verbose = 0});
  EXPECT_GT(h["val_accuracy"].back(), 0.95);
  EXPECT_LT(h["loss"].back(), h["loss"].front());
  // The validation part is the last 60 examples: evaluating them gives the same numbers.
  const Logs logs = evaluate(*net, {}, blobs.x.narrow(0, 240, 60), blobs.y.narrow(0, 240, 60));
  EXPECT_NEAR(logs.at("loss"), h["val_loss"].back(), 1e-5);
}

TEST(FitTest, SameSeedGivesTheSameRun) {
  const auto blobs = make_blobs(64, 4);
  auto run = [&] {
    manual_seed(3);
    auto net = make_classifier();
    optim::SGD sgd(net->trainable_weights(), {.lr = 0.05});
    return fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 2, .batch_size = 8, .seed = 7, .verbose = 0})["loss"];
  };
  EXPECT_EQ(run(), run());
}

TEST(FitTest, CustomLossAndMetrics) {
  manual_seed(4);
  const auto blobs = make_blobs(128, 5);
  auto net = make_classifier();
  optim::Adam adam(net->trainable_weights(), {.lr = 0.02});
  // Squared error against one-hot targets, with metrics that read one-hot rows.
  const Tensor onehot = one_hot(blobs.y, 2);
  LossFn mse = [](const Tensor& out, const Tensor& t) { return mse_loss(out, t); };
  const History h = fit(*net, adam, mse, {blobs.x, onehot},
                        {.epochs = 6,
                         .metrics = {std::make_shared<Accuracy>(), std::make_shared<F1Score>()},
                         .verbose = 0});
  EXPECT_TRUE(h.contains("f1"));
  EXPECT_GT(h["f1"].back(), 0.9);
  EXPECT_LT(h["loss"].back(), h["loss"].front());
}

TEST(FitTest, PredictIsBatchedAndInEvalMode) {
  manual_seed(5);
  const auto blobs = make_blobs(50, 6);
  auto net = make_classifier(/*dropout=*/0.5);
  const Tensor all = predict(*net, blobs.x, 1000), batched = predict(*net, blobs.x, 7);
  EXPECT_EQ(batched.shape(), (Shape{50, 2}));
  EXPECT_EQ(predict(*net, blobs.x, 7).to_vector<float>(), batched.to_vector<float>());  // dropout off
  // Batches of 7 are the rows of one batch of 50 (up to the last bit: other matmul kernels).
  const auto a = all.to_vector<float>(), b = batched.to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << i;
  EXPECT_FALSE(batched.requires_grad());
  EXPECT_TRUE(net->training());  // the mode is restored
  // In train mode dropout does change the outputs (so the check above means something).
  EXPECT_NE((*net)(blobs.x).to_vector<float>(), (*net)(blobs.x).to_vector<float>());
  // evaluate's accuracy is the accuracy of predict's outputs.
  const double acc = mean(cast(eq(argmax(all, 1), blobs.y), kFloat64)).item<double>();
  EXPECT_DOUBLE_EQ(evaluate(*net, {}, blobs.x, blobs.y, 9).at("accuracy"), acc);
}

// clip_grad_norm: one step of plain SGD at lr 1 moves the weights by the clipped gradient, so
// they move by exactly the bound; the same step unclipped moves them much further.
TEST(FitTest, ClipGradNormBoundsEachStep) {
  const auto blobs = make_blobs(16, 8);
  manual_seed(6);
  const auto start = make_classifier();
  const auto distance_moved = [&](double clip) {
    auto net = make_classifier();
    copy_weights(*start, *net);
    optim::SGD sgd(net->trainable_weights(), {.lr = 1});
    fit(*net, sgd, {}, {blobs.x, blobs.y}, {.batch_size = 16, .clip_grad_norm = clip, .verbose = 0});
    double squares = 0;
    for (size_t i = 0; i < start->all_weights().size(); ++i) {
      const auto before = start->all_weights()[i].to_vector<double>();
      const auto after = net->all_weights()[i].to_vector<double>();
      for (size_t k = 0; k < after.size(); ++k) squares += (after[k] - before[k]) * (after[k] - before[k]);
    }
    return std::sqrt(squares);
  };
  EXPECT_GT(distance_moved(0), 0.05);
  EXPECT_NEAR(distance_moved(1e-3), 1e-3, 1e-5);
}

// clip_grad_value: one step of plain SGD at lr 1 moves each weight by its clamped gradient, so no
// weight moves further than the bound, and the ones whose gradient was larger move by exactly it.
TEST(FitTest, ClipGradValueBoundsEachElementOfEachStep) {
  const auto blobs = make_blobs(16, 9);
  manual_seed(7);
  const auto start = make_classifier();
  auto net = make_classifier();
  copy_weights(*start, *net);
  optim::SGD sgd(net->trainable_weights(), {.lr = 1});
  const double clip = 1e-3;
  fit(*net, sgd, {}, {blobs.x, blobs.y}, {.batch_size = 16, .clip_grad_value = clip, .verbose = 0});
  int64_t at_the_bound = 0;
  for (size_t i = 0; i < start->all_weights().size(); ++i) {
    const auto before = start->all_weights()[i].to_vector<double>();
    const auto after = net->all_weights()[i].to_vector<double>();
    for (size_t k = 0; k < after.size(); ++k) {
      EXPECT_LE(std::fabs(after[k] - before[k]), clip * (1 + 1e-4)) << "weight " << i << "[" << k << "]";
      at_the_bound += std::fabs(std::fabs(after[k] - before[k]) - clip) < 1e-6;
    }
  }
  EXPECT_GT(at_the_bound, 10);  // unclipped, this step moves many weights by more than 1e-3
  EXPECT_THROW(fit(*net, sgd, {}, {blobs.x, blobs.y}, {.clip_grad_value = -1, .verbose = 0}), Error);
}

TEST(FitTest, RefusesBadInput) {
  const auto blobs = make_blobs(16, 7);
  auto net = make_classifier();
  optim::SGD sgd(net->trainable_weights());
  const FitOptions quiet{.verbose = 0};
  EXPECT_THROW(Data(blobs.x, blobs.y.narrow(0, 0, 15)), Error);
  EXPECT_THROW(fit(*net, sgd, {}, Data(), quiet), Error);
  optim::SGD empty(std::vector<Tensor>{});  // made before the model was called: no weights
  EXPECT_THROW(fit(*net, empty, {}, {blobs.x, blobs.y}, quiet), Error);
  LossFn per_element = [](const Tensor& out, const Tensor& t) { return mse_loss(out, one_hot(t, 2), Reduction::none); };
  strata::testing::expect_error([&] { fit(*net, sgd, per_element, {blobs.x, blobs.y}, quiet); },
                                {"a scalar or one loss per example, [16], got [16, 2]"});
  FitOptions twice{.metrics = {std::make_shared<Accuracy>(), std::make_shared<Accuracy>()}, .verbose = 0};
  EXPECT_THROW(fit(*net, sgd, {}, {blobs.x, blobs.y}, twice), Error);
  EXPECT_THROW(predict(*net, blobs.x, 0), Error);
  EXPECT_THROW(fit(*net, sgd, {}, {blobs.x, blobs.y}, {.clip_grad_norm = -1, .verbose = 0}), Error);
  EXPECT_THROW(fit(*net, sgd, {}, {blobs.x, blobs.y}, {.clip_grad_norm = std::nan(""), .verbose = 0}), Error);
}

}  // namespace
}  // namespace strata::train
