// Hyper-parameter search as a plan: search spaces (grids, seeded samples, errors), and grid,
// random and successive-halving searches over a real model (linear regression trained by SGD)
// run by an in-process worker on SQLite and PostgreSQL. The test trains every configuration
// itself and checks that the hub's best trial is the one it finds best, and that successive
// halving promoted exactly the configurations its own ranking promotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "linear_regression.hpp"
#include "run_plan.hpp"
#include "strata/workflow/search.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using nlohmann::json;
using strata::testing::expect_error;
using testing::fit_linear;
using testing::make_regression;

TEST(SearchSpace, GridsSamplesAndErrors) {
  const auto space = SearchSpace::from_json(json::parse(R"({
      "lr": {"type": "float", "min": 0.001, "max": 0.1, "log": true, "steps": 3},
      "units": {"type": "int", "min": 2, "max": 4},
      "act": {"choices": ["relu", "tanh"]}})"));
  const auto grid = space.grid();
  ASSERT_EQ(grid.size(), 3u * 3u * 2u);
  // Name order (act, lr, units), the last varying fastest.
  EXPECT_EQ(grid[0], json::parse(R"({"act": "relu", "lr": 0.001, "units": 2})"));
  EXPECT_EQ(grid[1]["units"], 3);
  EXPECT_NEAR(grid[3]["lr"].get<double>(), 0.01, 1e-12);  // the log-scale midpoint
  EXPECT_NEAR(grid[6]["lr"].get<double>(), 0.1, 1e-12);
  EXPECT_EQ(grid[9]["act"], "tanh");

  const auto a = space.sample(200, 7), b = space.sample(200, 7), c = space.sample(200, 8);
  EXPECT_EQ(a, b) << "the same seed gives the same configurations";
  EXPECT_NE(a, c);
  int below = 0;
  std::set<int64_t> units;
  for (const auto& cfg : a) {
    const double lr = cfg["lr"];
    EXPECT_GE(lr, 0.001);
    EXPECT_LE(lr, 0.1);
    below += lr < 0.01;  // log-uniform: half the draws under the geometric midpoint
    units.insert(cfg["units"].get<int64_t>());
    EXPECT_TRUE(cfg["act"] == "relu" || cfg["act"] == "tanh");
  }
  EXPECT_EQ(units, (std::set<int64_t>{2, 3, 4}));
  EXPECT_GT(below, 70);
  EXPECT_LT(below, 130);

  expect_error([] { SearchSpace::from_json(json::parse(R"({"lr": {"type": "float", "min": 1, "max": 0}})")); },
               {"parameter \"lr\"", "min", "above max"});
  expect_error([] { SearchSpace::from_json(json::parse(R"({"lr": {"type": "float", "min": 0, "max": 1, "log": true}})")); },
               {"\"lr\"", "log scale needs min > 0"});
  expect_error([] { SearchSpace::from_json(json::parse(R"({"x": {"choices": []}})")); }, {"\"x\"", "non-empty array"});
  expect_error([] { SearchSpace::from_json(json::parse(R"({"x": {"type": "int", "min": 0, "max": 3, "stpes": 2}})")); },
               {"\"x\"", "unknown field \"stpes\""});
  expect_error([] { SearchSpace::from_json(json::parse(R"({"lr": {"type": "float", "min": 0, "max": 1}})")).grid(); },
               {"\"lr\"", "needs its \"steps\""});
  expect_error([] { SearchSpec::from_json(json::parse(R"({"kind": "k", "model": "m", "space": {"x": {"choices": [1]}}, "methd": "grid"})")); },
               {"unknown field \"methd\""});
}

using SearchTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, SearchTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

const testing::Regression kTrain = make_regression(1, 128), kVal = make_regression(2, 64);

// The trial kind: regression with the configuration's lr and weight_decay for `budget` steps.
TaskKind regression_trial() {
  return trial_kind("regression", [](TaskContext&, const Trial& t) {
    auto fit = fit_linear(kTrain, kVal, t.config["lr"], t.config["weight_decay"], static_cast<int64_t>(t.budget));
    return TrialResult{fit.weights, {{"loss", fit.loss}}};
  });
}

double direct_loss(const json& config, double budget) {
  return fit_linear(kTrain, kVal, config["lr"], config["weight_decay"], static_cast<int64_t>(budget)).loss;
}

const char* kSpace = R"({"lr": {"type": "float", "min": 0.01, "max": 0.9, "log": true, "steps": 4},
                         "weight_decay": {"choices": [0, 0.05, 0.3]}})";

std::vector<Task> run_search(const std::string& url, hub::Hub& hub, const SearchSpec& spec) {
  TaskRegistry kinds;
  kinds.add(regression_trial());
  return testing::run_plan(url, hub, kinds, search_plan(spec));
}

TEST_P(SearchTest, GridAndRandomSearchesFindTheBestConfiguration) {
  auto hub = open();
  for (SearchMethod method : {SearchMethod::grid, SearchMethod::random}) {
    SearchSpec spec{.name = method == SearchMethod::grid ? "grid" : "random", .kind = "regression", .model = "linear",
                    .space = SearchSpace::from_json(json::parse(kSpace)), .method = method, .trials = 6, .seed = 3,
                    .budget = 12};
    const auto tasks = run_search(url_, hub, spec);
    const auto configs = method == SearchMethod::grid ? spec.space.grid() : spec.space.sample(6, 3);
    ASSERT_EQ(tasks.size(), configs.size());
    size_t best = 0;
    std::vector<double> losses;
    for (size_t i = 0; i < configs.size(); ++i) {
      losses.push_back(direct_loss(configs[i], spec.budget));
      if (losses[i] < losses[best]) best = i;
      const json r = json::parse(*tasks[i].result);
      EXPECT_EQ(r["config"], configs[i]);
      EXPECT_NEAR(r["metrics"]["loss"].get<double>(), losses[i], 1e-3 * losses[i]) << "trial " << i;
    }
    const auto top = find_best_trial(hub, spec);
    ASSERT_TRUE(top) << spec.name;
    EXPECT_EQ(json::parse(top->info.meta.values.at("config")), configs[best]) << spec.name;
    EXPECT_EQ(top->info.meta.values.at("trial"), std::to_string(best));
    EXPECT_NEAR(top->info.meta.metrics.at("loss"), losses[best], 1e-3 * losses[best]);
    // Its weights are the ones a direct fit of that configuration gives.
    const auto direct = fit_linear(kTrain, kVal, configs[best]["lr"], configs[best]["weight_decay"], 12).weights;
    ASSERT_EQ(top->weights.size(), direct.size());
    for (size_t k = 0; k < direct.size(); ++k) EXPECT_TRUE(allclose(top->weights[k].second, direct[k].second, 1e-3, 1e-4));
  }
  EXPECT_EQ(hub.list_models("linear").size(), 12u + 6u) << "every trial saved a version";
}

TEST_P(SearchTest, SuccessiveHalvingPromotesTheBestOfEachRung) {
  auto hub = open();
  SearchSpec spec{.name = "halving", .kind = "regression", .model = "linear",
                  .space = SearchSpace::from_json(json::parse(kSpace)), .method = SearchMethod::successive_halving,
                  .trials = 9, .seed = 11, .min_budget = 2, .eta = 3};
  const auto tasks = run_search(url_, hub, spec);
  ASSERT_EQ(tasks.size(), 9u + 3u + 1u);
  const auto configs = spec.space.sample(9, 11);

  // The test's own halving: rank rung 0 at budget 2, keep 3; rank those at budget 6, keep 1.
  auto ranked = [&](std::vector<int64_t> trials, double budget) {
    std::vector<std::pair<double, int64_t>> by_loss;
    for (int64_t t : trials) by_loss.emplace_back(direct_loss(configs[t], budget), t);
    std::sort(by_loss.begin(), by_loss.end());
    std::vector<int64_t> out;
    for (const auto& [loss, t] : by_loss) out.push_back(t);
    return out;
  };
  std::vector<int64_t> all(9);
  std::iota(all.begin(), all.end(), 0);
  std::vector<int64_t> rung1 = ranked(all, 2);
  rung1.resize(3);
  const int64_t winner = ranked(rung1, 6)[0];

  for (int j = 0; j < 3; ++j) {
    const json r = json::parse(*tasks[9 + j].result);
    EXPECT_EQ(r["rung"], 1);
    EXPECT_EQ(r["budget"], 6.0);
    EXPECT_EQ(r["trial"], rung1[j]) << "rank " << j << " of rung 1";
    EXPECT_EQ(r["config"], configs[rung1[j]]);
    EXPECT_EQ(tasks[9 + j].depends_on.size(), 9u);
  }
  const json last = json::parse(*tasks[12].result);
  EXPECT_EQ(last["trial"], winner);
  EXPECT_EQ(last["budget"], 18.0);
  const auto top = find_best_trial(hub, spec);
  ASSERT_TRUE(top);
  EXPECT_EQ(top->info.meta.values.at("trial"), std::to_string(winner));
  EXPECT_EQ(top->info.meta.values.at("rung"), "2");
  EXPECT_NEAR(top->info.meta.metrics.at("loss"), direct_loss(configs[winner], 18), 1e-3 * top->info.meta.metrics.at("loss"));
  EXPECT_EQ(hub.list_models("linear").size(), 13u);
}

}  // namespace
}  // namespace strata::workflow
