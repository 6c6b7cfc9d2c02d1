// Issue 13.6: a legitimate chain of 15,000 dependent tasks overflowed the stack (a recursive
// walk); a 155-byte grid over [2^53, 2^53 + 10] never ended (a float step that did not advance);
// grids, random searches and cross-validations asking for 10^12 trials exhausted memory. Now the
// walk is iterative, int ranges stay where a double counts exactly, and plan sizes are counted
// (overflow-safe) against limits().max_plan_tasks before anything is expanded.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "strata/core/limits.hpp"
#include "strata/workflow/cross_validation.hpp"
#include "strata/workflow/plan_file.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/search.hpp"
#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

using nlohmann::json;
using workflow::parse_plan_file;

// task0 <- task1 <- ... listed newest first, so the walk meets the whole chain from its end.
std::string chain_plan(int n) {
  json tasks = json::array();
  for (int i = n - 1; i >= 0; --i) {
    json t = {{"name", "task" + std::to_string(i)}, {"kind", "k"}};
    if (i > 0) t["after"] = {"task" + std::to_string(i - 1)};
    tasks.push_back(t);
  }
  return json{{"name", "chain"}, {"tasks", tasks}}.dump();
}

void expect_limit(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected a LimitError";
  } catch (const LimitError& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

using PlanLimits = TempHub;

TEST_F(PlanLimits, AChainOf15000TasksIsReadAndSubmitted) {
  constexpr int n = 15'000;
  const workflow::Plan plan = parse_plan_file(chain_plan(n));
  ASSERT_EQ(plan.tasks().size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(plan.tasks()[i].name, "task" + std::to_string(i));
    EXPECT_EQ(plan.tasks()[i].after, i == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{i - 1});
  }
  auto hub = hub::Hub::open(url_);
  const auto progress = workflow::Queue(hub).submit(plan);
  EXPECT_EQ(progress.task_ids.size(), static_cast<size_t>(n));
  // A cycle is still found, however long.
  json cyclic = json::parse(chain_plan(n));
  cyclic["tasks"][n - 1]["after"] = {"task" + std::to_string(n - 1)};  // task0 after the last one
  EXPECT_THROW(workflow::Plan::from_json(cyclic.dump()), Error);
}

json int_grid(const std::string& min, const std::string& max) {
  return json::parse(R"({"search": {"kind": "k", "model": "m", "method": "grid", "space": {"n": {"type": "int", "min": )" +
                     min + R"(, "max": )" + max + "}}}}");
}

TEST(PlanLimitsGrid, IntGridsNearTwoToThe53EndOrAreRefused) {
  // The ends count exactly up to 2^53: the 11 values up to it are all there.
  const workflow::Plan below = parse_plan_file(int_grid("9007199254740982", "9007199254740992").dump());
  ASSERT_EQ(below.tasks().size(), 11u);
  EXPECT_EQ(json::parse(below.tasks().back().params)["config"]["n"].get<int64_t>(), int64_t{1} << 53);
  // Past it a double cannot count by one: refused, naming the parameter (the 155-byte file that hung).
  try {
    parse_plan_file(int_grid("9007199254740992", "9007199254741002").dump());
    ADD_FAILURE() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("parameter \"n\""), std::string::npos) << what;
    EXPECT_NE(what.find("2^53"), std::string::npos) << what;
  }
}

TEST(PlanLimitsGrid, HugeSearchesAndCrossValidationsAreRefusedBeforeExpanding) {
  // 10^6 x 10^6 int grid points: 10^12 trials.
  json grid = int_grid("1", "1000000");
  grid["search"]["space"]["m"] = {{"type", "int"}, {"min", 1}, {"max", 1000000}};
  expect_limit([&] { parse_plan_file(grid.dump()); }, {"configurations", "1000000000000", "max_plan_tasks"});
  {
    // A product past 2^64 is refused too, not wrapped round to something small, even under the
    // largest limit: 10^6^4 steps.
    ScopedLimit largest(&Limits::max_plan_tasks, UINT64_MAX - 1);
    json wraps = int_grid("1", "1");
    for (const char* name : {"a", "b", "c", "d"})
      wraps["search"]["space"][name] = {{"type", "float"}, {"min", 0}, {"max", 1}, {"steps", 1000000}};
    expect_limit([&] { parse_plan_file(wraps.dump()); }, {"more than 18446744073709551615", "max_plan_tasks"});
  }
  // A float grid's steps alone.
  const json steps = json::parse(R"({"search": {"kind": "k", "model": "m", "method": "grid",
    "space": {"lr": {"type": "float", "min": 0, "max": 1, "steps": 1000000000000}}}})");
  expect_limit([&] { parse_plan_file(steps.dump()); }, {"1000000000000", "max_plan_tasks"});
  for (const char* method : {"random", "successive_halving"}) {
    const json random = {{"search", {{"kind", "k"}, {"model", "m"}, {"method", method}, {"trials", 1'000'000'000'000},
                                     {"space", {{"lr", {{"type", "float"}, {"min", 0}, {"max", 1}}}}}}}};
    expect_limit([&] { parse_plan_file(random.dump()); }, {"1000000000000", "max_plan_tasks"});
  }
  const json folds = {{"cross_validation", {{"kind", "f"}, {"examples", 1'000'000'000'000}, {"folds", 1'000'000'000'000}}}};
  expect_limit([&] { parse_plan_file(folds.dump()); }, {"cross-validation", "1000000000001", "max_plan_tasks"});
  // Five folds of 10^12 examples: every fold task would hold 8 TB of indices.
  const json examples = {{"cross_validation", {{"kind", "f"}, {"examples", 1'000'000'000'000}}}};
  expect_limit([&] { parse_plan_file(examples.dump()); }, {"indices", "8000000000000", "max_tensor_bytes"});
}

TEST(PlanLimitsGrid, TheLimitIsTheDocumentedOneAndCanBeRaised) {
  ScopedLimit small(&Limits::max_plan_tasks, 10);
  EXPECT_EQ(parse_plan_file(int_grid("1", "10").dump()).tasks().size(), 10u);
  expect_limit([&] { parse_plan_file(int_grid("1", "11").dump()); }, {"configurations 11", "max_plan_tasks = 10"});
  expect_limit([&] { parse_plan_file(chain_plan(11)); }, {"plan \"chain\"", "tasks 11", "STRATA_MAX_PLAN_TASKS"});
  workflow::Plan plan("built");
  for (int i = 0; i < 10; ++i) plan.add({.kind = "k"});
  expect_limit([&] { plan.add({.kind = "k"}); }, {"plan \"built\"", "tasks 11"});
  ScopedLimit raised(&Limits::max_plan_tasks, 12);
  EXPECT_EQ(parse_plan_file(chain_plan(12)).tasks().size(), 12u);
}

}  // namespace
}  // namespace strata::reliability
