// Hyper-parameter search as a plan: one task per trial over a SearchSpace, by grid, seeded
// random sampling or successive halving. Every trial saves its model version and metrics into
// the hub (committed with its result); the best is the hub's find_top_model over the search's
// final trials (find_best_trial).
//
// Successive halving is a static DAG: rung 0 runs `trials` configurations with `min_budget`;
// rung r has trials / eta^r tasks with min_budget * eta^r, each depending on every task of rung
// r - 1, and the j-th of them takes the configuration ranked j-th there by `metric`. Only the
// last rung (one task, or `max_rungs`) is final.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/hub/hub.hpp"
#include "strata/workflow/plan.hpp"
#include "strata/workflow/registry.hpp"
#include "strata/workflow/search_space.hpp"

namespace strata::workflow {

enum class SearchMethod { grid, random, successive_halving };

struct SearchSpec {
  std::string name = "search";  // the plan's name; every trial's model version records it
  std::string kind;             // a kind made with trial_kind, registered with the workers
  std::string model;            // every trial saves a version of this model
  SearchSpace space;
  SearchMethod method = SearchMethod::random;
  int64_t trials = 10;          // random and successive halving: configurations drawn
  uint64_t seed = 0;
  nlohmann::json fixed = nlohmann::json::object();  // merged into every configuration
  std::string metric = "loss";  // what ranks trials (a key of the trial's metrics)
  hub::Order order = hub::Order::ascending;
  double budget = 1;            // grid and random: every trial's budget (steps, epochs: the kind decides)
  double min_budget = 1;        // successive halving: rung 0's budget
  double eta = 3;               // successive halving: keep 1/eta of a rung, give eta times the budget
  int64_t max_rungs = 0;        // successive halving: 0 = until one trial is left
  std::vector<std::string> tags{};
  int64_t max_attempts = 3;
  int64_t priority = 0;

  // {"name", "kind", "model", "space": {...}, "method": "grid"|"random"|"successive_halving",
  //  "trials", "seed", "fixed": {...}, "metric", "order": "ascending"|"descending", "budget",
  //  "min_budget", "eta", "max_rungs", "tags", "max_attempts", "priority"}; unknown fields are errors.
  static SearchSpec from_json(const nlohmann::json& j);
};

// The plan of a search: one task per trial (per rung, for successive halving).
Plan search_plan(const SearchSpec& spec);

// What a trial function sees: its configuration (fixed values included), its budget, and where
// it stands. A promoted trial (rung > 0) may warm-start from previous_version of the model.
struct Trial {
  std::string search{};
  int64_t number = 0;  // the configuration's number in the search (kept across rungs)
  int64_t rung = 0;
  nlohmann::json config{};
  double budget = 1;
  std::optional<int64_t> previous_version{};
};

// What a trial produced: the weights to save and the metrics to rank by.
struct TrialResult {
  io::NamedTensors weights;
  std::map<std::string, double> metrics;
};
using TrialFn = std::function<TrialResult(TaskContext&, const Trial&)>;

// A task kind running `fn` as a trial: it resolves promotions (reading the previous rung's
// results), saves the weights as a version of the task's model with the metrics and the values
// search, trial, rung, final and config (staged in ctx.outputs), and returns
// {"trial", "rung", "config", "budget", "metrics"}.
TaskKind trial_kind(std::string name, TrialFn fn);

// The best final trial's model version (metrics, values["config"]), or nothing before any.
std::optional<hub::LoadedModel> find_best_trial(hub::Hub& hub, const SearchSpec& spec);

}  // namespace strata::workflow
