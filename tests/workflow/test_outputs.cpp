// A task's outputs commit with its result: model and dataset versions staged by a task are
// written in the transaction of its result, so a stale attempt (fenced out) leaves none behind
// and a successful one's are visible and named by its result. On SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::workflow {
namespace {

using hub::testing::expect_same_weights;
using hub::testing::HubTest;
using hub::testing::small_model;
using nlohmann::json;

using OutputsTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, OutputsTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST_P(OutputsTest, StaleAttemptLeavesNoVersionAndTheCurrentOneCommitsAll) {
  auto hub = open();
  Queue q(hub);
  const int64_t id = q.submit({.kind = "train", .name = "t", .model = "mlp"});
  auto a = q.lease("A", {"train"}, {}, 0.05);
  ASSERT_TRUE(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));  // A's lease expires
  EXPECT_EQ(q.reclaim_expired(), 1);
  auto b = q.lease("B", {"train"}, {}, 10);
  ASSERT_TRUE(b);

  const auto weights_a = small_model(1), weights_b = small_model(2);
  TaskOutputs from_a;
  from_a.save_model("mlp", weights_a, {.metrics = {{"accuracy", 0.5}}});
  from_a.save_dataset("features", {{"x", weights_a[0].second}});
  EXPECT_FALSE(q.complete(*a, R"({"by": "A"})", "", &from_a));
  EXPECT_TRUE(hub.list_models("mlp").empty()) << "a refused commit must leave no model version";
  EXPECT_TRUE(hub.find_datasets("features").empty()) << "nor a dataset version";

  io::NamedTensors changing = {{"w", weights_b[0].second.clone()}};
  TaskOutputs from_b;
  from_b.save_model("mlp", changing, {.metrics = {{"accuracy", 0.75}}});
  const io::NamedTensors staged_copy = {{"w", changing[0].second.clone()}};
  fill_(changing[0].second, 7.0);  // staging copied the weights: later changes are not saved
  from_b.save_dataset("features", hub::DatasetFiles{{.name = "a.txt", .bytes = "abc"}});
  EXPECT_TRUE(q.complete(*b, R"({"by": "B"})", "", &from_b));

  const auto models = hub.list_models("mlp");
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].version, 1);
  EXPECT_EQ(models[0].meta.metrics.at("accuracy"), 0.75);
  expect_same_weights(hub.load_model("mlp").weights, staged_copy);
  EXPECT_EQ(hub.load_dataset("features").files.at(0).bytes, "abc");
  const json result = json::parse(*q.get(id)->result);
  EXPECT_EQ(result["by"], "B");
  EXPECT_EQ(result["outputs"], json::parse(R"([{"model": "mlp", "version": 1}, {"dataset": "features", "version": 1}])"));

  // A failed attempt writes nothing either.
  const int64_t other = q.submit({.kind = "train", .name = "u"});
  auto c = q.lease("C", {"train"}, {}, 10);
  ASSERT_EQ(c->task.id, other);
  EXPECT_EQ(q.fail(*c, "diverged"), FailOutcome::retrying);
  EXPECT_EQ(hub.list_models("mlp").size(), 1u);
}

TEST_P(OutputsTest, WorkerCommitsWhatTheTaskFunctionSaved) {
  TaskRegistry r;
  r.add({.name = "train",
         .params = {{.name = "seed", .type = workflow::ParamType::integer, .required = true}},
         .fn = [](TaskContext& ctx) {
           const int64_t seed = ctx.params["seed"];
           ctx.outputs.save_model(ctx.task.model, small_model(seed), {.metrics = {{"seed", double(seed)}}});
           if (ctx.task.attempts == 1 && seed == 3) throw Error("first attempt of seed 3 fails after saving");
           return json(seed);  // not an object: the stored result wraps it
         }});
  auto hub = open();
  Queue q(hub);
  std::vector<int64_t> ids;
  for (int seed = 1; seed <= 4; ++seed)
    ids.push_back(q.submit({.kind = "train", .params = json{{"seed", seed}}.dump(), .model = "m" + std::to_string(seed),
                            .retry_delay_seconds = 0.01}));
  Worker w(url_, r, {.concurrency = 2, .exit_when_idle = false});
  w.start();
  for (int64_t id : ids) q.wait(id, std::chrono::seconds(20));
  w.stop();
  w.join();
  for (int seed = 1; seed <= 4; ++seed) {
    const auto t = q.get(ids[seed - 1]);
    ASSERT_EQ(t->status, TaskStatus::succeeded) << t->error;
    const json result = json::parse(*t->result);
    EXPECT_EQ(result["value"], seed);
    EXPECT_EQ(result["outputs"][0]["model"], "m" + std::to_string(seed));
    const auto versions = hub.list_models("m" + std::to_string(seed));
    ASSERT_EQ(versions.size(), 1u) << "seed " << seed << ": one version, even when an attempt failed after saving";
    expect_same_weights(hub.load_model("m" + std::to_string(seed)).weights, small_model(seed));
  }
  EXPECT_EQ(q.get(ids[2])->attempts, 2);
}

TEST(TaskOutputs, ChecksWhatItStagesAtOnce) {
  TaskOutputs out;
  strata::testing::expect_error([&] { out.save_model("", small_model(1)); }, {"model name is empty"});
  strata::testing::expect_error([&] { out.save_model("m", small_model(1), {.metrics = {{"loss", std::nan("")}}}); },
                                {"metric \"loss\" of model \"m\"", "finite"});
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace strata::workflow
