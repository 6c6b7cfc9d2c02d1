// FitOptions::gradient_accumulation_steps: groups of N batches step as one batch of their rows
// would, with one process and (through a stand-in ProcessGroup) under data parallelism, where all
// but a step's last pass are made under ProcessGroup::accumulate_locally.
#include <gtest/gtest.h>

#include "blobs.hpp"
#include "strata/core/error.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"
#include "strata/train/process_group.hpp"

namespace strata::train {
namespace {

using testing::copy_weights;
using testing::expect_weights_near;
using testing::make_blobs;
using testing::make_classifier;

// 100 rows, shuffled: batches of 8 in groups of 4 take the rows that batches of 32 take (both
// read one permutation in order), the last group 4 rows. SGD with momentum, so that a gradient
// scaled by any factor, or a step taken per batch, changes the weights.
TEST(GradientAccumulationTest, GroupsOfBatchesStepLikeOneBatchOfTheirRows) {
  const auto blobs = make_blobs(100, 11);
  manual_seed(5);
  const auto start = make_classifier();
  const auto trained = [&](int64_t batch_size, int64_t accumulation) {
    auto net = make_classifier();
    copy_weights(*start, *net);
    optim::SGD sgd(net->trainable_weights(), {.lr = 0.1, .momentum = 0.9});
    const History h = fit(*net, sgd, {}, {blobs.x, blobs.y},
                          {.epochs = 3, .batch_size = batch_size, .gradient_accumulation_steps = accumulation,
                           .seed = 2, .verbose = 0});
    EXPECT_EQ(h.epochs(), 3);
    return net;
  };
  const auto reference = trained(32, 1);
  expect_weights_near(*trained(8, 4), *reference, 1e-5);
  // The same batches of 8 stepped one by one end elsewhere: the check above can fail.
  EXPECT_NE(trained(8, 1)->all_weights()[0].to_vector<float>(), reference->all_weights()[0].to_vector<float>());
}

TEST(GradientAccumulationTest, RefusesLessThanOneStep) {
  const auto blobs = make_blobs(16, 7);
  auto net = make_classifier();
  optim::SGD sgd(net->trainable_weights());
  EXPECT_THROW(fit(*net, sgd, {}, {blobs.x, blobs.y}, {.gradient_accumulation_steps = 0, .verbose = 0}), Error);
}

// Rank `rank` of a stand-in group of 2 around a classifier: records, per forward pass, whether
// a LocalAccumulation was alive at the following backward, and how many it handed out.
struct RecordingReplica : nn::Layer, ProcessGroup {
  explicit RecordingReplica(int rank) : nn::Layer("recording_replica"), rank_(rank) { adopt(net.get()); }
  int rank() const override { return rank_; }
  int size() const override { return 2; }
  void average(std::vector<double>&) const override {}
  std::unique_ptr<LocalAccumulation> accumulate_locally() override {
    ++handed_out;
    struct Flag : LocalAccumulation {
      explicit Flag(bool& local) : local(local) { local = true; }
      ~Flag() override { local = false; }
      bool& local;
    };
    return std::make_unique<Flag>(local);
  }
  Tensor forward(const Tensor& x) override {
    rows.push_back(x.size(0));
    Tensor out = (*net)(x);
    // The backward of this pass runs after forward returns: read the flag from a gradient hook.
    out.register_hook([this](const Tensor& g) {
      local_at_backward.push_back(local);
      return g;
    });
    return out;
  }
  int rank_;
  std::unique_ptr<nn::Sequential> net = make_classifier();
  bool local = false;
  int handed_out = 0;
  std::vector<int64_t> rows;
  std::vector<bool> local_at_backward;
};

// 21 rows in batches of 5 (5, 5, 5, 5, 1), groups of 3. The last batch, one row, cannot be split
// over 2 processes and is skipped, so the second group's only pass (batch 4) must average: local,
// local, averaged; averaged.
TEST(GradientAccumulationTest, UnderAProcessGroupAllButTheStepsLastPassAccumulateLocally) {
  const auto blobs = make_blobs(21, 12);
  for (int rank : {0, 1}) {
    RecordingReplica replica(rank);
    optim::SGD sgd(replica.trainable_weights(), {.lr = 0.1});
    fit(replica, sgd, {}, {blobs.x, blobs.y},
        {.batch_size = 5, .gradient_accumulation_steps = 3, .shuffle = false, .verbose = 0});
    EXPECT_EQ(replica.handed_out, 2);
    EXPECT_EQ(replica.local_at_backward, (std::vector<bool>{true, true, false, false}));
    EXPECT_EQ(replica.rows, std::vector<int64_t>(4, rank == 0 ? 2 : 3));
    EXPECT_FALSE(replica.local);  // released after each pass
  }
}

}  // namespace
}  // namespace strata::train
