// The hub's callbacks in a fit: HubLogger's run read back and compared with the History, and
// ModelCheckpoint driven by scripted values (train/scripted_callback.hpp: the monitored value
// written and the weights stamped with the epoch).
#include <gtest/gtest.h>

#include "strata/hub/hub.hpp"
#include "strata/lifecycle/hub_logger.hpp"
#include "strata/lifecycle/model_checkpoint.hpp"
#include "strata/optim/adam.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"
#include "support/temp_dir.hpp"
#include "train/blobs.hpp"
#include "train/scripted_callback.hpp"

namespace strata::lifecycle {
namespace {

using train::fit;
using train::History;

class HubCallbackTest : public strata::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    manual_seed(11);
    net = train::testing::make_classifier();
  }

  train::testing::Blobs blobs = train::testing::make_blobs(64, 12), val = train::testing::make_blobs(32, 13);
  std::unique_ptr<nn::Sequential> net;
};

TEST_F(HubCallbackTest, HubLoggerWritesStepAndEpochMetricsIntoARun) {
  hub::Hub hub = hub::Hub::open(path("hub.db"));
  auto logger = std::make_shared<HubLogger>(hub, "blobs", R"({"lr": 0.01})");
  optim::Adam adam(net->trainable_weights(), {.lr = 0.01});
  const History h =
      fit(*net, adam, {}, {blobs.x, blobs.y},
          {.epochs = 3, .batch_size = 16, .validation_data = {val.x, val.y}, .callbacks = {logger}, .verbose = 0});
  const int64_t run = logger->run_id();
  EXPECT_EQ(hub.run_info(run)->status, "finished");
  const auto loss = hub.metric_history(run, "loss", hub::Split::train);
  const auto val_acc = hub.metric_history(run, "accuracy", hub::Split::validation);
  ASSERT_EQ(loss.size(), 3u);
  ASSERT_EQ(val_acc.size(), 3u);
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(loss[e].step, e);
    EXPECT_DOUBLE_EQ(loss[e].value, h["loss"][e]);
    EXPECT_DOUBLE_EQ(val_acc[e].value, h["val_accuracy"][e]);
  }
  const auto steps = hub.metric_history(run, "batch_loss", hub::Split::train);
  ASSERT_EQ(steps.size(), 12u);  // 4 batches x 3 epochs
  EXPECT_EQ(steps.back().step, 12);
  EXPECT_DOUBLE_EQ(steps[3].value, h["loss"][0]);  // the running mean at the end of epoch 0
  EXPECT_EQ(hub.events(run).size(), 2u);
}

TEST_F(HubCallbackTest, ModelCheckpointSavesAVersionWhenTheMonitoredValueImproves) {
  hub::Hub hub = hub::Hub::open(path("hub.db"));
  optim::SGD sgd(net->trainable_weights(), {.lr = 0});
  auto script = std::make_shared<train::testing::Scripted>("val_loss", std::vector<double>{0.9, 0.7, 0.8, 0.6, 0.65});
  auto ckpt = std::make_shared<ModelCheckpoint>(hub, "blobs-mlp", ModelCheckpointOptions{.tags = {"test"}});
  fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 5, .callbacks = {script, ckpt}, .verbose = 0});
  EXPECT_EQ(ckpt->versions(), (std::vector<int64_t>{1, 2, 3}));  // epochs 0, 1, 3
  const hub::LoadedModel best = hub.load_model("blobs-mlp");
  EXPECT_EQ(best.info.meta.values.at("epoch"), "3");
  EXPECT_DOUBLE_EQ(best.info.meta.metrics.at("val_loss"), 0.6);
  EXPECT_EQ(best.info.meta.tags, std::vector<std::string>{"test"});
  const auto names = net->named_weights();
  ASSERT_EQ(best.weights.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(best.weights[i].first, names[i].first);
    for (float v : best.weights[i].second.to_vector<float>()) EXPECT_EQ(v, 4.0f);  // stamped at epoch 3
  }
  const auto top = hub.find_top_model("blobs-mlp", "val_loss", hub::Order::ascending);
  ASSERT_TRUE(top);
  EXPECT_EQ(top->info.version, 3);
}

}  // namespace
}  // namespace strata::lifecycle
