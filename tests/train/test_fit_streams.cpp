// fit on a data::Stream, and FitOptions::steps_per_epoch: a stream trains as the same rows in
// order would; with steps_per_epoch one pass goes on across epochs, data of known size starts
// again when a pass ends, and a stream that ends stops the training, saying so.
#include <gtest/gtest.h>

#include <sstream>

#include "blobs.hpp"
#include "strata/core/error.hpp"
#include "strata/data/dataset.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"

namespace strata::train {
namespace {

using testing::copy_weights;
using testing::make_blobs;
using testing::make_classifier;

// The rows of x and y as a stream of {x_i, y_i} examples, in order.
data::Stream stream_of(const Tensor& x, const Tensor& y) { return data::TensorDataset({x, y}).stream(); }

struct BatchCounter : Callback {
  void on_batch_end(int64_t, const Logs&) override { ++batches; }
  int64_t batches = 0;
};

// Trains a copy of `start` with SGD (momentum, so that every step's order and size count) and
// returns it with how many batches it trained on.
std::pair<std::unique_ptr<nn::Sequential>, int64_t> trained(const nn::Layer& start, const Data& data,
                                                            FitOptions options) {
  auto net = make_classifier();
  copy_weights(start, *net);
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1, .momentum = 0.9});
  auto counter = std::make_shared<BatchCounter>();
  options.callbacks.push_back(counter);
  options.verbose = 0;
  fit(*net, sgd, {}, data, options);
  return {std::move(net), counter->batches};
}

std::vector<float> first_weight(const nn::Layer& net) { return net.all_weights()[0].to_vector<float>(); }

TEST(FitStreamTest, AStreamTrainsLikeItsRowsInOrder) {
  const auto blobs = make_blobs(100, 21), val = make_blobs(30, 22);
  manual_seed(7);
  const auto start = make_classifier();
  FitOptions options{.epochs = 2, .batch_size = 8, .gradient_accumulation_steps = 2, .shuffle = false};
  options.validation_data = stream_of(val.x, val.y);
  const auto [from_stream, stream_batches] = trained(*start, stream_of(blobs.x, blobs.y), options);
  options.validation_data = Data(val.x, val.y);
  const auto [from_tensors, tensor_batches] = trained(*start, Data(blobs.x, blobs.y), options);
  EXPECT_EQ(stream_batches, 26);  // 13 batches an epoch, the last of 4 rows
  EXPECT_EQ(tensor_batches, 26);
  EXPECT_EQ(first_weight(*from_stream), first_weight(*from_tensors));
  // A stream's size is not known: validation_split cannot cut it.
  EXPECT_THROW(trained(*start, stream_of(blobs.x, blobs.y), {.validation_split = 0.2}), Error);
  EXPECT_THROW(trained(*start, data::Stream::from_examples({}), {}), Error);  // no batch at all
}

// 40 rows in batches of 8: a pass is 5 batches. Two epochs of 2 take batches 0-3 of one pass.
TEST(FitStreamTest, StepsPerEpochGoesOnWithOnePassAcrossEpochs) {
  const auto blobs = make_blobs(40, 23);
  manual_seed(8);
  const auto start = make_classifier();
  const auto [stepped, batches] =
      trained(*start, stream_of(blobs.x, blobs.y), {.epochs = 2, .steps_per_epoch = 2, .batch_size = 8});
  EXPECT_EQ(batches, 4);
  const auto [first_32_rows, reference_batches] =
      trained(*start, Data(blobs.x.narrow(0, 0, 32), blobs.y.narrow(0, 0, 32)), {.batch_size = 8, .shuffle = false});
  EXPECT_EQ(reference_batches, 4);
  EXPECT_EQ(first_weight(*stepped), first_weight(*first_32_rows));
}

// The stream's 5 batches give epochs of 2, 2 and 1; then fit stops and says why.
TEST(FitStreamTest, AStreamThatRunsOutStopsTheTraining) {
  const auto blobs = make_blobs(40, 24);
  auto net = make_classifier();
  optim::SGD sgd(net->trainable_weights());
  std::ostringstream out;
  const History h = fit(*net, sgd, {}, stream_of(blobs.x, blobs.y),
                        {.epochs = 5, .steps_per_epoch = 2, .batch_size = 8, .verbose = 0, .out = &out});
  EXPECT_EQ(h.epochs(), 3);
  EXPECT_NE(out.str().find("ran out after 1 of epoch 3's 2 batches"), std::string::npos) << out.str();
}

// Data of known size starts a new pass instead: 3 batches a pass, epochs of 2, 3 epochs = 2 passes.
TEST(FitStreamTest, DataOfKnownSizeStartsANewPassWhenOneEnds) {
  const auto blobs = make_blobs(24, 25);
  manual_seed(9);
  const auto start = make_classifier();
  std::ostringstream out;
  const auto [stepped, batches] = trained(*start, Data(blobs.x, blobs.y),
                                          {.epochs = 3, .steps_per_epoch = 2, .batch_size = 8, .shuffle = false,
                                           .out = &out});
  EXPECT_EQ(batches, 6);
  EXPECT_EQ(out.str(), "");
  const auto [two_passes, reference_batches] =
      trained(*start, Data(blobs.x, blobs.y), {.epochs = 2, .batch_size = 8, .shuffle = false});
  EXPECT_EQ(reference_batches, 6);
  EXPECT_EQ(first_weight(*stepped), first_weight(*two_passes));
  EXPECT_THROW(trained(*start, Data(blobs.x, blobs.y), {.steps_per_epoch = -1}), Error);
}

}  // namespace
}  // namespace strata::train
