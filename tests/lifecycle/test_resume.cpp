// Resumable training (lifecycle/resume.hpp): 2 epochs checkpointed, then 2 more resumed into a fresh
// model and optimizer with another RNG state must give the weights and logs of 4 uninterrupted
// epochs bit for bit (Adam's moments, dropout's generator and the shuffles all matter); and the
// checkpoints that cannot be resumed are refused.
#include <gtest/gtest.h>

#include <cstring>

#include "strata/lifecycle/model_checkpoint.hpp"
#include "strata/lifecycle/resume.hpp"
#include "strata/optim/adam.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/train.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"
#include "train/blobs.hpp"

namespace strata::lifecycle {
namespace {

using train::CallbackList;
using train::fit;
using train::FitOptions;
using train::History;
using train::testing::make_blobs;

// The classifier of blobs.hpp with fixed layer names, so that a second instance (the resumed
// process's) has the names of the first, as in a new process.
std::unique_ptr<nn::Sequential> named_classifier(int64_t extra_units = 0) {
  auto net = std::make_unique<nn::Sequential>(std::vector<std::shared_ptr<nn::Layer>>{}, "net");
  net->add<nn::Dense>(16, nn::relu, "hidden");
  net->add<nn::Dropout>(0.3, "drop");
  net->add<nn::Dense>(2, nn::Activation{}, "out");
  if (extra_units > 0) net->add<nn::Dense>(extra_units, nn::Activation{}, "extra");
  (*net)(zeros({1, 2}));
  return net;
}

class ResumeTest : public strata::testing::TempDirTest {
 protected:
  // A fresh model and optimizer; `init_seed` decides the initial weights (and the generator).
  void make(uint64_t init_seed) {
    manual_seed(init_seed);
    net = named_classifier();
    adam = std::make_unique<optim::Adam>(net->trainable_weights(), optim::AdamOptions{.lr = 0.02});
  }
  FitOptions options(int64_t epochs, CallbackList callbacks = {}) const {
    return {.epochs = epochs,
            .batch_size = 16,
            .validation_data = {val.x, val.y},
            .seed = 9,
            .callbacks = std::move(callbacks),
            .verbose = 0};
  }
  std::shared_ptr<ModelCheckpoint> every_epoch(hub::Hub& hub) const {
    return std::make_shared<ModelCheckpoint>(hub, "blobs", ModelCheckpointOptions{.save_best_only = false});
  }

  train::testing::Blobs blobs = make_blobs(72, 12), val = make_blobs(32, 13);
  std::unique_ptr<nn::Sequential> net;
  std::unique_ptr<optim::Adam> adam;
};

bool same_weights(const nn::Layer& a, const nn::Layer& b) {
  const auto wa = a.named_weights(), wb = b.named_weights();
  if (wa.size() != wb.size()) return false;
  for (size_t i = 0; i < wa.size(); ++i) {
    const Tensor x = wa[i].second.contiguous(), y = wb[i].second.contiguous();
    if (x.shape() != y.shape() || std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) != 0) return false;
  }
  return true;
}

TEST_F(ResumeTest, AResumedFitMatchesAnUninterruptedOneBitForBit) {
  make(3);
  const History whole = fit(*net, *adam, {}, {blobs.x, blobs.y}, options(4));
  const auto reference = named_classifier();  // a copy of the uninterrupted result
  nn::assign_weights_by_name(*reference, net->named_weights());

  hub::Hub hub = hub::Hub::open(path("hub.db"));
  make(3);
  fit(*net, *adam, {}, {blobs.x, blobs.y}, options(2, {every_epoch(hub)}));

  make(77);  // another start and another generator state: the checkpoint must replace both
  FitOptions resumed = options(4, {every_epoch(hub)});
  resumed.seed = 0;
  const hub::ModelInfo info = resume_from(hub, "blobs", *net, *adam, resumed);
  EXPECT_EQ(info.version, 2);
  EXPECT_EQ(resumed.initial_epoch, 2);
  EXPECT_EQ(resumed.seed, 9u);
  const History rest = fit(*net, *adam, {}, {blobs.x, blobs.y}, resumed);

  EXPECT_TRUE(same_weights(*net, *reference));
  ASSERT_EQ(rest.epochs(), 2);
  for (int64_t e = 0; e < 2; ++e) EXPECT_EQ(rest.at(e), whole.at(e + 2)) << "epoch " << e + 2;
  EXPECT_EQ(hub.load_model("blobs").info.meta.values.at("epoch"), "3");
  EXPECT_EQ(hub.model_info("blobs/optimizer")->version, 4);

  // The check can fail: the same weights, epochs and shuffles with a fresh Adam differ.
  make(77);
  nn::assign_weights_by_name(*net, hub.load_model("blobs", 2).weights);
  FitOptions weights_only = options(4);
  weights_only.initial_epoch = 2;
  fit(*net, *adam, {}, {blobs.x, blobs.y}, weights_only);
  EXPECT_FALSE(same_weights(*net, *reference));
}

TEST_F(ResumeTest, CheckpointsThatCannotBeResumedAreRefused) {
  using strata::testing::expect_error;
  hub::Hub hub = hub::Hub::open(path("hub.db"));
  make(3);
  fit(*net, *adam, {}, {blobs.x, blobs.y}, options(1, {every_epoch(hub)}));
  auto weights_only = std::make_shared<ModelCheckpoint>(
      hub, "bare", ModelCheckpointOptions{.save_best_only = false, .include_optimizer = false});
  fit(*net, *adam, {}, {blobs.x, blobs.y}, options(1, {weights_only}));
  hub.save_model("by-hand", net->named_weights(), {.values = {{"epoch", "x1"}}});

  FitOptions o = options(4);
  expect_error([&] { resume_from(hub, "bare", *net, *adam, o); },
               {"'bare' version 1", "no training state", "'optimizer_version'", "include_optimizer"});
  expect_error([&] { resume_from(hub, "by-hand", *net, *adam, o); }, {"'by-hand' version 1", "'epoch'", "'x1'"});
  optim::SGD sgd(net->trainable_weights(), {.lr = 0.1});
  expect_error([&] { resume_from(hub, "blobs:1", *net, sgd, o); }, {"trained with Adam", "given is SGD"});
  const auto wider = named_classifier(3);
  expect_error([&] { resume_from(hub, "blobs", *wider, *adam, o); }, {"holds 4 of the model's 6 weights"});
  expect_error(
      [&] {
        fit(*net, *adam, {}, {blobs.x, blobs.y}, {.epochs = 2, .initial_epoch = 3});
      },
      {"initial_epoch", "[0, 2]", "got 3"});
}

// A resumed save_best_only checkpoint must beat the versions of the epochs before the resume.
TEST_F(ResumeTest, ResumedSaveBestOnlyComparesWithEarlierVersions) {
  hub::Hub hub = hub::Hub::open(path("hub.db"));
  make(3);
  hub.save_model("best", net->named_weights(), {.metrics = {{"val_loss", 1e-9}}, .values = {{"epoch", "1"}}});
  auto best = std::make_shared<ModelCheckpoint>(hub, "best");
  FitOptions o = options(3, {best});
  o.initial_epoch = 2;
  fit(*net, *adam, {}, {blobs.x, blobs.y}, o);
  EXPECT_TRUE(best->versions().empty());
  o.initial_epoch = 0;  // a new run starts afresh
  fit(*net, *adam, {}, {blobs.x, blobs.y}, o);
  EXPECT_FALSE(best->versions().empty());
}

}  // namespace
}  // namespace strata::lifecycle
