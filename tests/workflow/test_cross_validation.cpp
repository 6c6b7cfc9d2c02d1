// Cross-validation as a plan: 5 folds of a real model (linear regression trained by SGD) run by
// an in-process worker on SQLite and PostgreSQL. The test fits every fold itself and checks the
// folds' results and models, and that the aggregate's mean and std in the hub are those of the
// 5 fold losses.
#include <gtest/gtest.h>

#include <cmath>

#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "linear_regression.hpp"
#include "run_plan.hpp"
#include "strata/data/dataset.hpp"
#include "strata/workflow/cross_validation.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using nlohmann::json;
using strata::testing::expect_error;
using testing::fit_linear;
using testing::rows;

using CrossValidationTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, CrossValidationTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

const testing::Regression kData = testing::make_regression(5, 103, 0.5);

TEST_P(CrossValidationTest, FiveFoldsReportTheMeanAndStdOfFiveRuns) {
  auto hub = open();
  TaskRegistry kinds;
  kinds.add(fold_kind("regression_fold", [](TaskContext&, const CrossValidationFold& f) {
    auto fit = fit_linear(rows(kData, f.train), rows(kData, f.validation), f.config["lr"], 0, f.config["steps"]);
    return FoldResult{fit.weights, {{"loss", fit.loss}, {"neg_loss", -fit.loss}}};
  }));
  kinds.add(cross_validation_aggregate_kind());
  const CrossValidationSpec spec{.name = "cv-linear", .kind = "regression_fold", .model = "linear", .examples = 103,
                                 .folds = 5, .shuffle_seed = 4, .config = {{"lr", 0.05}, {"steps", 15}}};
  const auto tasks = testing::run_plan(url_, hub, kinds, cross_validation_plan(spec));
  ASSERT_EQ(tasks.size(), 6u);
  EXPECT_EQ(tasks[5].depends_on.size(), 5u);

  // The test's own 5 runs.
  const auto parts = data::kfold_indices(103, 5, 4);
  std::vector<double> losses;
  for (int f = 0; f < 5; ++f) {
    std::vector<int64_t> train;
    for (int g = 0; g < 5; ++g)
      if (g != f) train.insert(train.end(), parts[g].begin(), parts[g].end());
    losses.push_back(fit_linear(rows(kData, train), rows(kData, parts[f]), 0.05, 0, 15).loss);
    const json r = json::parse(*tasks[f].result);
    EXPECT_EQ(r["fold"], f);
    EXPECT_NEAR(r["metrics"]["loss"].get<double>(), losses[f], 1e-4 * losses[f]) << "fold " << f;
  }
  double mean = 0, var = 0;
  for (double l : losses) mean += l / 5;
  for (double l : losses) var += (l - mean) * (l - mean) / 5;
  const double std = std::sqrt(var);
  ASSERT_GT(std, 1e-3 * mean) << "the folds should differ, or std says nothing";

  const json agg = json::parse(*tasks[5].result);
  EXPECT_EQ(agg["folds"], 5);
  EXPECT_NEAR(agg["metrics"]["loss"]["mean"].get<double>(), mean, 1e-4 * mean);
  EXPECT_NEAR(agg["metrics"]["loss"]["std"].get<double>(), std, 1e-3 * std);
  EXPECT_NEAR(agg["metrics"]["neg_loss"]["mean"].get<double>(), -mean, 1e-4 * mean);

  // In the hub: the summary dataset, committed with the aggregate's result, and 5 fold models.
  const auto summary = hub.load_dataset("cv-linear");
  EXPECT_EQ(summary.info.meta.values.at("cv"), "cv-linear");
  EXPECT_NEAR(std::stod(summary.info.meta.values.at("loss.mean")), mean, 1e-4 * mean);
  EXPECT_NEAR(std::stod(summary.info.meta.values.at("loss.std")), std, 1e-3 * std);
  ASSERT_EQ(summary.tensors.size(), 2u);
  EXPECT_EQ(summary.tensors[0].first, "loss");
  const auto stored = summary.tensors[0].second.to_vector<double>();
  ASSERT_EQ(stored.size(), 5u);
  for (int f = 0; f < 5; ++f) EXPECT_NEAR(stored[f], losses[f], 1e-4 * losses[f]);
  const auto models = hub.list_models("linear");
  ASSERT_EQ(models.size(), 5u);
  for (const auto& m : models) {
    const int fold = std::stoi(m.meta.values.at("fold"));
    EXPECT_NEAR(m.meta.metrics.at("loss"), losses[fold], 1e-4 * losses[fold]);
    EXPECT_EQ(m.meta.values.at("cv"), "cv-linear");
  }
}

TEST(CrossValidation, PlanErrors) {
  expect_error([] { cross_validation_plan({.kind = "k", .examples = 3, .folds = 5}); }, {"\"cv\"", "folds must be in [2, examples = 3]", "got 5"});
  expect_error([] { cross_validation_plan({.examples = 10}); }, {"no fold kind"});
  const Plan p = cross_validation_plan({.name = "x", .kind = "k", .examples = 10, .folds = 3});
  ASSERT_EQ(p.tasks().size(), 4u);
  EXPECT_EQ(p.tasks()[3].kind, "cv_aggregate");
  EXPECT_EQ(p.tasks()[3].after, (std::vector<int64_t>{0, 1, 2}));
}

}  // namespace
}  // namespace strata::workflow
