// OnlineRetraining: examples arriving on a stream become dataset versions and retraining tasks
// when the trigger fires or the accuracy drops, and a worker turns each into a model version
// trained on exactly the data seen until then.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hub/hub_fixture.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/workflow/online_retraining.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using RetrainingTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, RetrainingTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The "model" is the mean of y over the task's input dataset version.
TaskRegistry mean_registry() {
  TaskRegistry r;
  r.add({.name = "fit_mean", .fn = [](TaskContext& ctx) {
           const auto data = load_input_dataset(ctx);
           const Tensor& y = data.tensors.at(1).second;
           ctx.outputs.save_model(ctx.task.model, {{"mean", mean(y)}},
                                  {.metrics = {{"samples", static_cast<double>(y.size(0))}}});
           return nlohmann::json{{"samples", y.size(0)}};
         }});
  return r;
}

TEST_P(RetrainingTest, TriggerAndAccuracyDropEachTrainANewVersion) {
  auto hub = open();
  OnlineRetraining online(hub, {.dataset = "stream", .model = "mean_model", .kind = "fit_mean"},
                          {.new_samples = 50});
  data::AppendableStream stream;
  online.watch(stream);
  std::vector<double> ys;
  for (int i = 0; i < 120; ++i) {
    ys.push_back(i % 7 + 0.25 * i);
    stream.append({full({2}, 1.0 * i), full({}, ys.back())});
  }
  EXPECT_EQ(online.submitted().size(), 2u) << "fired at 50 and at 100 new samples";
  EXPECT_FALSE(online.check_accuracy(0.9, 0.8));
  EXPECT_TRUE(online.check_accuracy(0.6, 0.8)) << "accuracy on new labels dropped below the threshold";
  ASSERT_EQ(online.submitted().size(), 3u);

  const TaskRegistry registry = mean_registry();
  Worker worker(url_, registry, {.exit_when_idle = true});
  worker.run();
  EXPECT_EQ(worker.stats().succeeded, 3);

  const auto versions = hub.list_models("mean_model");
  ASSERT_EQ(versions.size(), 3u);
  for (int64_t v = 1; v <= 3; ++v) {
    const int64_t n = v == 1 ? 50 : v == 2 ? 100 : 120;  // the data seen when each was submitted
    const auto loaded = hub.load_model("mean_model", v);
    EXPECT_EQ(loaded.info.meta.metrics.at("samples"), n) << "version " << v;
    double expected = 0;
    for (int64_t i = 0; i < n; ++i) expected += ys[i];
    EXPECT_NEAR(loaded.weights.at(0).second.item<double>(), expected / n, 1e-4) << "version " << v;
  }
  EXPECT_EQ(hub.load_dataset("stream").info.version, 3);
}

TEST_P(RetrainingTest, BadExamplesAndSpecsAreRefused) {
  auto hub = open();
  EXPECT_THROW(OnlineRetraining(hub, {.dataset = "d", .model = "", .kind = "k"}, {}), Error);
  OnlineRetraining online(hub, {.dataset = "d", .model = "m", .kind = "k"}, {.new_samples = 1});
  EXPECT_THROW(online.observe({full({}, 1.0)}), Error) << "one field where two are declared";
  EXPECT_TRUE(online.submitted().empty());
}

}  // namespace
}  // namespace strata::workflow
