// Issue 13.3: JSON nested 200,000 levels deep killed every worker that leased the task (a
// recursive copy of its params), `strata plan submit` and nn::Model::load. Outside JSON is now
// refused past limits().max_json_depth where it enters, before anything recursive reads it.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/nn/model.hpp"
#include "strata/workflow/plan_file.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"
#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

using nlohmann::json;
using workflow::Queue;
using workflow::TaskStatus;

constexpr size_t kDeep = 200'000;

std::string nested_array(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

void expect_depth_refusal(const std::function<void()>& fn, const std::string& source) {
  try {
    fn();
    ADD_FAILURE() << "expected a LimitError for " << source;
  } catch (const LimitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("max_json_depth"), std::string::npos) << what;
    EXPECT_NE(what.find(source), std::string::npos) << what;
  }
}

using JsonDepth = TempHub;

TEST_F(JsonDepth, SubmitRefusesDeepParamsAndStoresNothing) {
  auto hub = hub::Hub::open(url_);
  Queue q(hub);
  expect_depth_refusal([&] { q.submit({.kind = "echo", .params = "{\"a\": " + nested_array(kDeep) + "}"}); }, "params");
  EXPECT_TRUE(q.list().empty());
  // At the limit is fine: {"a": [[...]]} nests limit levels in all.
  const std::string at_limit = "{\"a\": " + nested_array(limits().max_json_depth - 1) + "}";
  EXPECT_NO_THROW(q.submit({.kind = "echo", .params = at_limit}));
}

// A row written past the limit (by an older client, or by hand) fails for good on the worker,
// which goes on to the next task.
TEST_F(JsonDepth, AWorkerFailsADeepTaskAndGoesOn) {
  auto hub = hub::Hub::open(url_);
  Queue q(hub);
  int64_t deep = 0;
  {
    ScopedLimit lenient(&Limits::max_json_depth, 2 * kDeep);
    deep = q.submit({.kind = "echo", .params = "{\"a\": " + nested_array(kDeep) + "}", .max_attempts = 3});
  }
  const int64_t fine = q.submit({.kind = "echo", .params = R"({"a": [[1]]})"});
  workflow::TaskRegistry registry;
  registry.add({.name = "echo",
                .params = {{.name = "a", .type = workflow::ParamType::any}},
                .fn = [](workflow::TaskContext& ctx) { return ctx.params; }});
  workflow::Worker worker(url_, registry, {.exit_when_idle = true});
  worker.run();
  const auto failed = q.get(deep);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, TaskStatus::failed);
  EXPECT_EQ(failed->attempts, 1) << "bad params are permanent: no retries";
  EXPECT_NE(failed->error.find("max_json_depth"), std::string::npos) << failed->error;
  EXPECT_NE(failed->error.find("task " + std::to_string(deep) + " params"), std::string::npos) << failed->error;
  const auto done = q.get(fine);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, TaskStatus::succeeded);
  EXPECT_EQ(json::parse(*done->result), json::parse(R"({"a": [[1]]})"));
}

TEST_F(JsonDepth, PlanFilesAreRefusedInCodeAndByTheCommandLine) {
  const std::string plan =
      R"({"name": "deep", "tasks": [{"name": "t", "kind": "k", "params": {"x": )" + nested_array(kDeep) + "}}]}";
  expect_depth_refusal([&] { workflow::parse_plan_file(plan); }, "plan file");
  expect_depth_refusal([&] { workflow::Plan::from_json(plan); }, "plan");
  const std::string search = R"({"search": {"kind": "k", "model": "m", "space": {"x": {"choices": )" +
                             nested_array(kDeep) + "}}}}";
  expect_depth_refusal([&] { workflow::parse_plan_file(search); }, "plan file");

  const CliResult r = strata("plan submit '" + write_file("deep.json", plan) + "'");
  EXPECT_EQ(r.status, 1) << "killed by a signal (-1) or something else; stderr: " << r.err;
  EXPECT_NE(r.err.find("max_json_depth"), std::string::npos) << r.err;
  auto hub = hub::Hub::open(url_);
  EXPECT_TRUE(Queue(hub).list().empty());
}

TEST_F(JsonDepth, ModelFilesAndArchitecturesAreRefused) {
  const std::string architecture =
      R"({"format": "strata.model", "version": 1, "model": {"class": "model", "name": "m", "config": {"inputs": )" +
      nested_array(kDeep) + "}}}";
  expect_depth_refusal([&] { nn::Model::from_json(architecture); }, "model architecture");
  const std::string path = (dir_ / "deep.safetensors").string();
  io::save_safetensors(path, {{"w", zeros({1})}}, {{"strata.model", architecture}});
  expect_depth_refusal([&] { nn::Model::load(path); }, path);
}

// Rows the command line prints (a task's result) may come from any client: a deep one is shown
// as its text rather than parsed.
TEST_F(JsonDepth, PlanTasksPrintsADeepResultAsText) {
  auto hub = hub::Hub::open(url_);
  Queue q(hub);
  workflow::Plan plan("p");
  plan.add({.kind = "echo"});
  const auto submitted = q.submit(plan);
  auto lease = q.lease("w", {"echo"}, {}, 30);
  ASSERT_TRUE(lease);
  ASSERT_TRUE(q.start(*lease));
  const std::string deep_result = nested_array(kDeep);
  ASSERT_TRUE(q.complete(*lease, deep_result));
  const CliResult r = strata("plan --json tasks " + std::to_string(submitted.plan_id));
  ASSERT_EQ(r.status, 0) << r.err;
  const json tasks = json::parse(r.out);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0]["result"], deep_result);
}

}  // namespace
}  // namespace strata::reliability
