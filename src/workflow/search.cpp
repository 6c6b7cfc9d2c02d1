// Searches as plans (grid, random, successive halving), the trial kind that runs a trial
// function and saves its model, and the best final trial.
#include "strata/workflow/search.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/error.hpp"
#include "dependency_results.hpp"
#include "spec_fields.hpp"

namespace strata::workflow {

using nlohmann::json;
using detail::SpecFields;

namespace {

const char* order_name(hub::Order o) { return o == hub::Order::ascending ? "ascending" : "descending"; }

hub::Order parse_order(const json& j, const std::string& who) {
  STRATA_CHECK(j.is_string() && (j == "ascending" || j == "descending"), who,
               ": \"order\" must be \"ascending\" or \"descending\", got ", j.dump());
  return j == "ascending" ? hub::Order::ascending : hub::Order::descending;
}

TaskSpec trial_task(const SearchSpec& spec, std::string name, json params) {
  return {.kind = spec.kind, .params = params.dump(), .name = std::move(name), .model = spec.model,
          .priority = spec.priority, .tags = spec.tags, .max_attempts = spec.max_attempts};
}

std::vector<json> configurations(const SearchSpec& spec) {
  std::vector<json> configs = spec.method == SearchMethod::grid ? spec.space.grid() : spec.space.sample(spec.trials, spec.seed);
  for (auto& c : configs)
    for (const auto& [k, v] : spec.fixed.items())
      if (!c.contains(k)) c[k] = v;
  return configs;
}

// One candidate for promotion: a finished trial of the previous rung.
struct Ranked {
  double value;
  int64_t trial;
  json config;
  std::optional<int64_t> version;
};

// The configuration ranked `rank` among the task's dependencies (the previous rung).
Trial promoted(TaskContext& ctx, const json& promote, Trial trial) {
  const std::string metric = promote.value("metric", "loss");
  const bool ascending = parse_order(promote.value("order", json("ascending")), "trial promotion") == hub::Order::ascending;
  const int64_t rank = promote.value("rank", int64_t{0});
  std::vector<Ranked> rung;
  const std::string who = "search \"" + trial.search + "\" rung " + std::to_string(trial.rung);
  for (const auto& [dep, r] : detail::dependency_results(ctx, who)) {
    STRATA_CHECK(r.contains("metrics") && r["metrics"].contains(metric) && r["metrics"][metric].is_number(), who,
                 ": task ", std::to_string(dep), " (trial ", r.value("trial", json(-1)).dump(),
                 ") reported no metric \"", metric, "\" to rank by; it reported ", r.value("metrics", json()).dump());
    Ranked c{r["metrics"][metric].get<double>(), r.value("trial", int64_t{-1}), r.value("config", json::object()), {}};
    for (const auto& o : r.value("outputs", json::array()))
      if (o.value("model", "") == ctx.task.model) c.version = o["version"].get<int64_t>();
    rung.push_back(std::move(c));
  }
  std::sort(rung.begin(), rung.end(), [&](const Ranked& a, const Ranked& b) {
    if (a.value != b.value) return ascending ? a.value < b.value : a.value > b.value;
    return a.trial < b.trial;
  });
  STRATA_CHECK(rank >= 0 && rank < static_cast<int64_t>(rung.size()), "search \"", trial.search, "\": rung ",
               std::to_string(trial.rung), " asks for rank ", std::to_string(rank), " of ", std::to_string(rung.size()),
               " trials");
  trial.number = rung[rank].trial;
  trial.config = rung[rank].config;
  trial.previous_version = rung[rank].version;
  return trial;
}

json run_trial(const TrialFn& fn, TaskContext& ctx) {
  const json& p = ctx.params;
  Trial trial{.search = p["search"], .number = p["trial"], .rung = p["rung"], .config = p["config"], .budget = p["budget"]};
  if (p.contains("promote")) trial = promoted(ctx, p["promote"], std::move(trial));
  STRATA_CHECK(!ctx.task.model.empty(), "search \"", trial.search, "\": trial task ", std::to_string(ctx.task.id),
               " has no model key to save its model under");
  TrialResult out = fn(ctx, trial);
  const bool final = p["final"];
  hub::ModelMeta meta;
  meta.metrics = out.metrics;
  meta.values = {{"search", trial.search},
                 {"trial", std::to_string(trial.number)},
                 {"rung", std::to_string(trial.rung)},
                 {"final", final ? "true" : "false"},
                 {"budget", json(trial.budget).dump()},
                 {"config", trial.config.dump()}};
  ctx.outputs.save_model(ctx.task.model, out.weights, meta);
  return {{"trial", trial.number}, {"rung", trial.rung}, {"config", trial.config}, {"budget", trial.budget},
          {"metrics", out.metrics}};
}

}  // namespace

Plan search_plan(const SearchSpec& spec) {
  const std::string who = "search \"" + spec.name + "\"";
  STRATA_CHECK(!spec.kind.empty(), who, ": no trial kind");
  STRATA_CHECK(!spec.model.empty(), who, ": no model to save the trials' versions under");
  STRATA_CHECK(spec.fixed.is_object(), who, ": \"fixed\" must be an object");
  if (spec.method != SearchMethod::grid) STRATA_CHECK(spec.trials >= 1, who, ": trials must be at least 1");
  const std::vector<json> configs = configurations(spec);
  Plan plan(spec.name);
  const json base{{"search", spec.name}, {"final", true}, {"rung", 0}};
  if (spec.method != SearchMethod::successive_halving) {
    for (size_t i = 0; i < configs.size(); ++i) {
      json p = base;
      p["trial"] = i;
      p["budget"] = spec.budget;
      p["config"] = configs[i];
      plan.add(trial_task(spec, "trial" + std::to_string(i), p));
    }
    return plan;
  }
  STRATA_CHECK(spec.eta > 1, who, ": eta must be above 1, got ", std::to_string(spec.eta));
  STRATA_CHECK(spec.min_budget > 0, who, ": min_budget must be positive");
  // Rung sizes: trials, trials/eta, ... while at least one is left (and max_rungs allows).
  std::vector<int64_t> sizes{static_cast<int64_t>(configs.size())};
  while (spec.max_rungs == 0 || static_cast<int64_t>(sizes.size()) < spec.max_rungs) {
    const auto next = static_cast<int64_t>(std::floor(double(sizes.back()) / spec.eta));
    if (next < 1) break;
    sizes.push_back(next);
  }
  std::vector<int64_t> previous;
  for (size_t r = 0; r < sizes.size(); ++r) {
    std::vector<int64_t> current;
    const double budget = spec.min_budget * std::pow(spec.eta, double(r));
    for (int64_t j = 0; j < sizes[r]; ++j) {
      json p = base;
      p["rung"] = r;
      p["final"] = r + 1 == sizes.size();
      p["budget"] = budget;
      if (r == 0) {
        p["trial"] = j;
        p["config"] = configs[j];
      } else {
        p["promote"] = {{"rank", j}, {"metric", spec.metric}, {"order", order_name(spec.order)}};
      }
      TaskSpec t = trial_task(spec, "rung" + std::to_string(r) + (r == 0 ? "/trial" : "/rank") + std::to_string(j), p);
      t.after = previous;
      current.push_back(plan.add(std::move(t)));
    }
    previous = std::move(current);
  }
  return plan;
}

TaskKind trial_kind(std::string name, TrialFn fn) {
  STRATA_CHECK(static_cast<bool>(fn), "trial_kind: kind \"", name, "\" has no trial function");
  return {.name = std::move(name),
          .params = {{.name = "search", .type = ParamType::string, .required = true},
                     {.name = "trial", .type = ParamType::integer, .default_value = -1},
                     {.name = "rung", .type = ParamType::integer, .default_value = 0},
                     {.name = "final", .type = ParamType::boolean, .default_value = true},
                     {.name = "budget", .type = ParamType::number, .default_value = 1},
                     {.name = "config", .type = ParamType::object, .default_value = json::object()},
                     {.name = "promote", .type = ParamType::object}},
          .fn = [fn = std::move(fn)](TaskContext& ctx) { return run_trial(fn, ctx); },
          .help = "a hyper-parameter search trial (workflow::trial_kind)"};
}

std::optional<hub::LoadedModel> find_best_trial(hub::Hub& hub, const SearchSpec& spec) {
  hub::ModelFilter finals;
  finals.values = {{"search", spec.name}, {"final", "true"}};
  return hub.find_top_model(spec.model, spec.metric, spec.order, finals);
}

SearchSpec SearchSpec::from_json(const json& j) {
  SearchSpec s;
  s.name = SpecFields::name_in(j, s.name);
  const std::string who = "search \"" + s.name + "\"";
  int64_t seed = 0;
  SpecFields(who)
      .text("name", s.name)
      .text("kind", s.kind)
      .text("model", s.model)
      .custom("space", [&](const json& v) { s.space = SearchSpace::from_json(v); })
      .custom("method",
              [&](const json& v) {
                STRATA_CHECK(v == "grid" || v == "random" || v == "successive_halving", who,
                             ": method must be \"grid\", \"random\" or \"successive_halving\", got ", v.dump());
                s.method = v == "grid" ? SearchMethod::grid : v == "random" ? SearchMethod::random : SearchMethod::successive_halving;
              })
      .integer("trials", s.trials)
      .integer("seed", seed)
      .object("fixed", s.fixed)
      .text("metric", s.metric)
      .custom("order", [&](const json& v) { s.order = parse_order(v, who); })
      .number("budget", s.budget)
      .number("min_budget", s.min_budget)
      .number("eta", s.eta)
      .integer("max_rungs", s.max_rungs)
      .task_options(s.tags, s.max_attempts, s.priority)
      .read(j);
  s.seed = static_cast<uint64_t>(seed);
  STRATA_CHECK(j.contains("space"), who, ": no \"space\"");
  STRATA_CHECK(!s.kind.empty() && !s.model.empty(), who, ": needs a \"kind\" and a \"model\"");
  return s;
}

}  // namespace strata::workflow
