// Cross-validation as a plan: one task per fold of the data module's kfold_indices, then an
// aggregate task that records each metric's mean and standard deviation over the folds in the
// hub (a dataset version, committed with its result).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/hub/hub.hpp"
#include "strata/workflow/plan.hpp"
#include "strata/workflow/registry.hpp"
#include "strata/workflow/search.hpp"

namespace strata::workflow {

struct CrossValidationSpec {
  std::string name = "cv";      // the plan's name; fold models and the summary record it
  std::string kind;             // a kind made with fold_kind, registered with the workers
  std::string model;            // every fold saves a version of this model (empty: none saved)
  std::string input_dataset{};  // every fold task's input key (the data the folds index)
  int64_t examples = 0;         // the size of that data: folds are kfold_indices(examples, folds, shuffle_seed)
  int64_t folds = 5;
  std::optional<uint64_t> shuffle_seed{};
  nlohmann::json config = nlohmann::json::object();  // given to every fold
  std::string summary_dataset{};  // the aggregate's dataset version; empty: name
  std::string aggregate_kind = "cv_aggregate";
  std::vector<std::string> tags{};
  int64_t max_attempts = 3;
  int64_t priority = 0;

  // {"name", "kind", "model", "input_dataset", "examples", "folds", "shuffle_seed", "config": {...},
  //  "summary_dataset", "aggregate_kind", "tags", "max_attempts", "priority"}: "kind" and
  //  "examples" are required; unknown fields are errors naming the cross-validation.
  static CrossValidationSpec from_json(const nlohmann::json& j);
};

// `folds` fold tasks, then one aggregate task (of aggregate_kind) depending on all of them.
Plan cross_validation_plan(const CrossValidationSpec& spec);

// What a fold function sees: indices into the data of `examples` (the same on every worker).
struct CrossValidationFold {
  std::string cv{};
  int64_t number = 0;  // 0 .. folds - 1
  int64_t folds = 0;
  nlohmann::json config{};
  std::vector<int64_t> train{}, validation{};  // validation is the number-th part; train the rest
};
// The weights to save (may be empty) and the metrics to average.
using FoldResult = TrialResult;
using FoldFn = std::function<FoldResult(TaskContext&, const CrossValidationFold&)>;

// A task kind running `fn` on one fold: saves the weights as a version of the task's model
// (values cv, fold, folds, config) and returns {"fold", "metrics"}.
TaskKind fold_kind(std::string name, FoldFn fn);

// The aggregate kind ("cv_aggregate" unless named): reads the folds' results and, for every
// metric all folds reported, saves into dataset `summary` one float64 tensor of the fold values
// (fold order) with values "<metric>.mean" and "<metric>.std" (population standard deviation,
// numpy's default), and returns {"folds", "metrics": {m: {"mean", "std", "values"}}}.
TaskKind cross_validation_aggregate_kind(std::string name = "cv_aggregate");

}  // namespace strata::workflow
