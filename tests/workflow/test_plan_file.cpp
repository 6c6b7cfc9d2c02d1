// Plan files (`strata plan submit FILE.json`): a cross-validation or a search given as JSON is
// the plan its spec makes in C++, and its errors name the field; a cross-validation file
// submitted by the real `strata` binary runs on a worker with the fold and aggregate kinds.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "strata/workflow/cross_validation.hpp"
#include "strata/workflow/plan_file.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/search.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using nlohmann::json;
using strata::testing::expect_error;
using namespace std::chrono_literals;

void expect_same_plan(const Plan& got, const Plan& want) {
  EXPECT_EQ(got.name(), want.name());
  ASSERT_EQ(got.tasks().size(), want.tasks().size());
  for (size_t i = 0; i < want.tasks().size(); ++i) {
    const TaskSpec &a = got.tasks()[i], &b = want.tasks()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind) << b.name;
    EXPECT_EQ(json::parse(a.params), json::parse(b.params)) << b.name;
    EXPECT_EQ(a.after, b.after) << b.name;
    EXPECT_EQ(a.model, b.model) << b.name;
    EXPECT_EQ(a.input_dataset, b.input_dataset) << b.name;
    EXPECT_EQ(a.output_dataset, b.output_dataset) << b.name;
    EXPECT_EQ(a.tags, b.tags) << b.name;
    EXPECT_EQ(a.priority, b.priority) << b.name;
    EXPECT_EQ(a.max_attempts, b.max_attempts) << b.name;
  }
}

const char* kCrossValidation = R"({"cross_validation": {
  "name": "cv-linear", "kind": "regression_fold", "model": "linear", "input_dataset": "points:2",
  "examples": 103, "folds": 5, "shuffle_seed": 4, "config": {"lr": 0.05}, "summary_dataset": "cv-summary",
  "tags": ["cpu"], "max_attempts": 2, "priority": 3}})";

TEST(PlanFile, CrossValidationAndSearchFilesAreTheirSpecsPlans) {
  expect_same_plan(parse_plan_file(kCrossValidation),
                   cross_validation_plan({.name = "cv-linear", .kind = "regression_fold", .model = "linear",
                                          .input_dataset = "points:2", .examples = 103, .folds = 5, .shuffle_seed = 4,
                                          .config = {{"lr", 0.05}}, .summary_dataset = "cv-summary", .tags = {"cpu"},
                                          .max_attempts = 2, .priority = 3}));
  // Defaults: 5 folds, no shuffle, the plan's name "cv", the aggregate kind "cv_aggregate".
  expect_same_plan(parse_plan_file(R"({"cross_validation": {"kind": "f", "examples": 10}})"),
                   cross_validation_plan({.kind = "f", .examples = 10}));

  const char* search = R"({"search": {"name": "lr", "kind": "trial", "model": "m", "method": "successive_halving",
    "space": {"lr": {"type": "float", "min": 0.001, "max": 1, "log": true}}, "trials": 9, "seed": 7, "eta": 3}})";
  expect_same_plan(parse_plan_file(search),
                   search_plan({.name = "lr", .kind = "trial", .model = "m",
                                .space = SearchSpace::from_json(json::parse(search)["search"]["space"]),
                                .method = SearchMethod::successive_halving, .trials = 9, .seed = 7, .eta = 3}));
  const char* tasks = R"({"name": "two", "tasks": [{"name": "b", "kind": "k", "after": ["a"]}, {"name": "a", "kind": "k"}]})";
  expect_same_plan(parse_plan_file(tasks), Plan::from_json(tasks));
}

TEST(PlanFile, ErrorsNameTheFieldAndTheSpec) {
  expect_error([] { parse_plan_file(R"({"cross_validation": {"kind": "f", "examples": 10}, "tasks": []})"); },
               {"a cross_validation file holds only \"cross_validation\"", "\"tasks\""});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"name": "cv1", "kind": "f", "examples": 10, "fold": 2}})"); },
               {"cross-validation \"cv1\"", "unknown field \"fold\""});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"kind": "f"}})"); }, {"needs \"examples\""});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"examples": 10}})"); }, {"needs a \"kind\""});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"kind": "f", "examples": 10, "folds": "5"}})"); },
               {"\"folds\" must be an integer", "\"5\""});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"kind": "f", "examples": 10, "config": [1]}})"); },
               {"\"config\" must be an object"});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"kind": "f", "examples": 3, "folds": 5}})"); },
               {"folds must be in [2, examples = 3]"});
  expect_error([] { parse_plan_file(R"({"cross_validation": {"kind": "f", "examples": 10, "tags": ["a", 1]}})"); },
               {"\"tags\" must be an array of strings"});
  expect_error([] { parse_plan_file(R"({"search": {"kind": "t", "model": "m", "space": {}, "methd": "grid"}})"); },
               {"unknown field \"methd\""});
  expect_error([] { parse_plan_file("{\"cross_validation\": "); }, {"plan: not valid JSON"});
}

#ifdef STRATA_CLI_PATH

using PlanFileCli = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, PlanFileCli, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// `strata plan submit cv.json --json`: the plan id from its JSON output, or 0 when it failed.
int64_t submit_with_cli(const std::string& url, const std::string& file) {
  const std::string cmd = std::string("'") + STRATA_CLI_PATH + "' plan submit '" + file + "' --hub '" + url + "' --json";
  std::string out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return 0;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
  return json::parse(out).at("plan").get<int64_t>();
}

TEST_P(PlanFileCli, SubmittedCrossValidationRunsOnWorkersWithItsKinds) {
  const std::string file = (dir_ / "cv.json").string();
  std::ofstream(file) << kCrossValidation;
  const int64_t plan = submit_with_cli(url_, file);
  ASSERT_GT(plan, 0) << "strata plan submit failed";

  // Each fold reports its validation size times config.lr, and checks that it got every row once.
  TaskRegistry kinds;
  kinds.add(fold_kind("regression_fold", [](TaskContext& ctx, const CrossValidationFold& f) {
    EXPECT_EQ(ctx.task.input_dataset, "points:2");
    std::vector<int64_t> rows = f.train;
    rows.insert(rows.end(), f.validation.begin(), f.validation.end());
    std::sort(rows.begin(), rows.end());
    for (int64_t i = 0; i < 103; ++i) EXPECT_EQ(rows.at(i), i) << "fold " << f.number;
    const double scaled = f.config["lr"].get<double>() * static_cast<double>(f.validation.size());
    return FoldResult{{{"w", from_vector(std::vector<double>{scaled})}}, {{"scaled", scaled}}};
  }));
  kinds.add(cross_validation_aggregate_kind());
  auto hub = open();
  Queue q(hub);
  Worker worker(url_, kinds, {.tags = {"cpu"}});
  worker.start();
  const PlanProgress done = q.wait_plan(plan, 60s);
  worker.stop();
  worker.join();
  ASSERT_TRUE(done.all_succeeded()) << done.summary();
  ASSERT_EQ(done.total(), 6);
  const json aggregate = json::parse(*q.get(done.task_ids.back())->result);
  EXPECT_EQ(aggregate["folds"], 5);
  EXPECT_NEAR(aggregate["metrics"]["scaled"]["mean"].get<double>(), 0.05 * 103 / 5, 1e-12);
  EXPECT_EQ(hub.load_dataset("cv-summary").info.meta.values.at("cv"), "cv-linear");
  EXPECT_EQ(hub.list_models("linear").size(), 5u);
}

#endif

}  // namespace
}  // namespace strata::workflow
