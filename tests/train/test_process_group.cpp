// fit with a model that is a ProcessGroup, without MPI: a stand-in group says "rank 1 of 2"
// (or rank 0) and records what fit asks of it. The real thing runs in tests/dist.
#include <gtest/gtest.h>

#include <sstream>

#include "strata/core/factory.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"
#include "strata/train/process_group.hpp"

namespace strata::train {
namespace {

// Runs a Dense layer and records the batch sizes it sees; averaging halves every value, so
// that the test sees fit use the group's average.
struct FakeReplica : nn::Layer, ProcessGroup {
  FakeReplica(int rank) : nn::Layer("fake_replica"), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return 2; }
  void average(std::vector<double>& values) const override {
    for (double& v : values) v /= 2;
  }
  Tensor forward(const Tensor& x) override {
    rows.push_back(x.size(0));
    return dense(x);
  }
  int rank_;
  nn::Dense dense{2};
  std::vector<int64_t> rows;
};

struct Recorder : Callback {
  explicit Recorder(bool zero_only) : zero_only(zero_only) {}
  bool rank_zero_only() const override { return zero_only; }
  void on_epoch_end(int64_t, Logs& logs) override { epoch_logs.push_back(logs); }
  bool zero_only;
  std::vector<Logs> epoch_logs;
};

TEST(ProcessGroupTest, FitGivesEachRankItsSliceAndOutputOnlyOnRankZero) {
  for (int rank : {0, 1}) {
    FakeReplica model(rank);
    Tensor x = randn({11, 3}), y = randint(0, 2, {11});
    model(x.narrow(0, 0, 1));
    model.rows.clear();
    optim::SGD sgd(model.trainable_weights(), {.lr = 0.1});
    auto everywhere = std::make_shared<Recorder>(false), rank_zero = std::make_shared<Recorder>(true);
    std::ostringstream out;
    History h = fit(model, sgd, {}, {x, y},
                    {.epochs = 1, .batch_size = 5, .shuffle = false, .callbacks = {everywhere, rank_zero}, .out = &out});
    // Batches of 5, 5, 1: rank 0 takes rows [0, 2), rank 1 [2, 5); the last row alone cannot be split.
    EXPECT_EQ(model.rows, (std::vector<int64_t>{rank == 0 ? 2 : 3, rank == 0 ? 2 : 3}));
    EXPECT_EQ(everywhere->epoch_logs.size(), 1u);
    EXPECT_EQ(rank_zero->epoch_logs.size(), rank == 0 ? 1u : 0u);
    EXPECT_EQ(out.str().empty(), rank != 0);
    EXPECT_DOUBLE_EQ(h.at(0).at("lr"), 0.05);  // the group's "average" was applied to the logs
  }
}

// Each rank weighs its own rows: rank 1's rows of each batch of 5 ([2, 5)) weigh 0, so its
// local gradient is 0 and its weights stay where they were; rank 0's rows weigh 1 and move it.
TEST(ProcessGroupTest, EachRankTakesTheSampleWeightsOfItsOwnRows) {
  for (int rank : {0, 1}) {
    FakeReplica model(rank);
    const Tensor x = randn({10, 3}), y = randint(0, 2, {10});
    const Tensor weights = from_vector(std::vector<float>{1, 1, 0, 0, 0, 1, 1, 0, 0, 0});
    model(x.narrow(0, 0, 1));
    const std::vector<float> before = model.dense.W.to_vector<float>();
    optim::SGD sgd(model.trainable_weights(), {.lr = 0.5});
    std::ostringstream out;
    fit(model, sgd, {}, {x, y, weights}, {.epochs = 1, .batch_size = 5, .shuffle = false, .out = &out});
    EXPECT_EQ(model.dense.W.to_vector<float>() == before, rank == 1) << "rank " << rank;
  }
}

}  // namespace
}  // namespace strata::train
