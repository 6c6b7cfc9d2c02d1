// Static models in the hub (lifecycle/hub_models.hpp): saved with their architecture JSON, loaded
// back as ready models (load_static_model, find_top_static_model, ModelCheckpoint versions).
#include <gtest/gtest.h>

#include "strata/autograd/grad_mode.hpp"
#include "strata/hub/hub.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/lifecycle/model_checkpoint.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/fit.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"
#include "train/blobs.hpp"

namespace strata::lifecycle {
namespace {

using HubModelsTest = strata::testing::TempDirTest;
using train::fit;

std::shared_ptr<nn::Model> make_static_classifier() {
  auto x = nn::Input({-1, 2}, "point");
  auto h = nn::Dense(8, "relu")(x);
  auto out = nn::Dense(2)(nn::Concat()({h, nn::Dense(4, "tanh")(x)}));
  return std::make_shared<nn::Model>(x, out, "classifier");
}

TEST_F(HubModelsTest, TopVersionComesBackReadyToRun) {
  auto hub = hub::Hub::open(path("hub.db"));
  auto net = make_static_classifier();
  const Tensor x = randn({5, 2});
  std::vector<Tensor> outputs;
  for (double accuracy : {0.7, 0.9, 0.8}) {
    NoGradGuard no_grad;
    for (Tensor w : net->all_weights()) copy_(w, randn(w.shape()));
    outputs.push_back(net->run({x})[0]);
    save_model(hub, "clf", *net, {.metrics = {{"accuracy", accuracy}}});
  }
  auto top = find_top_static_model(hub, "clf", "accuracy");
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(top->info.version, 2);
  EXPECT_EQ(top->info.meta.architecture, net->to_json());
  EXPECT_TRUE(allclose(top->model->run({x})[0], outputs[1], 0, 0));
  HubModel third = load_static_model(hub, "clf", 3);
  EXPECT_TRUE(allclose(third.model->run({x})[0], outputs[2], 0, 0));
  EXPECT_FALSE(find_top_static_model(hub, "clf", "no_such_metric").has_value());
}

TEST_F(HubModelsTest, CheckpointsOfStaticModelsCarryTheirArchitecture) {
  auto hub = hub::Hub::open(path("hub.db"));
  manual_seed(3);
  auto net = make_static_classifier();
  const auto blobs = train::testing::make_blobs(64, 5);
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  auto checkpoint = std::make_shared<ModelCheckpoint>(
      hub, "blobs", ModelCheckpointOptions{.monitor = "loss", .save_best_only = false});
  fit(*net, sgd, {}, {blobs.x, blobs.y}, {.epochs = 2, .callbacks = {checkpoint}, .verbose = 0});
  ASSERT_EQ(checkpoint->versions().size(), 2u);
  HubModel last = load_static_model(hub, "blobs");  // the latest: the weights training ended with
  net->eval();
  EXPECT_TRUE(allclose(last.model->run({blobs.x})[0], net->run({blobs.x})[0], 0, 0));
}

TEST_F(HubModelsTest, DynamicVersionsAndMismatchedWeightsAreRefused) {
  auto hub = hub::Hub::open(path("hub.db"));
  auto dynamic = train::testing::make_classifier();
  save_model(hub, "dyn", *dynamic);
  EXPECT_EQ(hub.model_info("dyn")->meta.architecture, "sequential");
  strata::testing::expect_error([&] { load_static_model(hub, "dyn"); },
                                {"'dyn' version 1", "not a static model", "assign_weights_by_name"});
  // An architecture whose weights are not the version's.
  auto net = make_static_classifier();
  hub.save_model("wrong", dynamic->named_weights(), {.architecture = net->to_json()});
  strata::testing::expect_error([&] { load_static_model(hub, "wrong"); }, {"'wrong' version 1", "has no weight named"});
}

}  // namespace
}  // namespace strata::lifecycle
