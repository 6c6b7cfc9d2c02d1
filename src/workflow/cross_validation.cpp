// Cross-validation plans, the fold kind that runs a fold function, and the aggregate kind that
// records the mean and standard deviation of the folds' metrics.
#include "strata/workflow/cross_validation.hpp"

#include <cmath>
#include <map>

#include "dependency_results.hpp"
#include "spec_fields.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "strata/data/dataset.hpp"

namespace strata::workflow {

using nlohmann::json;
using detail::SpecFields;

namespace {

json run_fold(const FoldFn& fn, TaskContext& ctx) {
  const json& p = ctx.params;
  CrossValidationFold fold{.cv = p["cv"], .number = p["fold"], .folds = p["folds"], .config = p["config"]};
  const int64_t examples = p["examples"];
  std::optional<uint64_t> seed;
  if (p.contains("shuffle_seed")) seed = p["shuffle_seed"].get<uint64_t>();
  const std::string who = "cross-validation \"" + fold.cv + "\"";
  STRATA_CHECK(fold.number >= 0 && fold.number < fold.folds, who, ": fold ", std::to_string(fold.number),
               " is not in [0, ", std::to_string(fold.folds), ")");
  // Every worker derives the same folds from (examples, folds, seed): the plan carries no indices.
  auto parts = data::kfold_indices(examples, static_cast<int>(fold.folds), seed);
  fold.validation = std::move(parts[fold.number]);
  for (int64_t f = 0; f < fold.folds; ++f)
    if (f != fold.number) fold.train.insert(fold.train.end(), parts[f].begin(), parts[f].end());
  FoldResult out = fn(ctx, fold);
  if (!ctx.task.model.empty() && !out.weights.empty()) {
    hub::ModelMeta meta;
    meta.metrics = out.metrics;
    meta.values = {{"cv", fold.cv},
                   {"fold", std::to_string(fold.number)},
                   {"folds", std::to_string(fold.folds)},
                   {"config", fold.config.dump()}};
    ctx.outputs.save_model(ctx.task.model, out.weights, meta);
  }
  return {{"fold", fold.number}, {"metrics", out.metrics}};
}

json run_aggregate(TaskContext& ctx) {
  const std::string cv = ctx.params["cv"], summary = ctx.params["summary"];
  const std::string who = "cross-validation \"" + cv + "\" aggregate";
  std::map<int64_t, json> by_fold;  // fold -> metrics
  for (const auto& [dep, r] : detail::dependency_results(ctx, who)) {
    STRATA_CHECK(r.contains("fold") && r["fold"].is_number_integer() && r.contains("metrics") && r["metrics"].is_object(),
                 who, ": task ", std::to_string(dep), " is not a fold task (its result is ", r.dump().substr(0, 200), ")");
    STRATA_CHECK(by_fold.emplace(r["fold"].get<int64_t>(), r["metrics"]).second, who, ": fold ", r["fold"].dump(),
                 " comes twice");
  }
  STRATA_CHECK(!by_fold.empty(), who, ": no fold tasks to aggregate");
  // The metrics every fold reported.
  std::map<std::string, std::vector<double>> values;
  for (const auto& [name, v] : by_fold.begin()->second.items()) {
    std::vector<double> column;
    for (const auto& [fold, metrics] : by_fold)
      if (metrics.contains(name) && metrics[name].is_number()) column.push_back(metrics[name].get<double>());
    if (column.size() == by_fold.size()) values[name] = std::move(column);
  }
  json out{{"folds", by_fold.size()}, {"metrics", json::object()}};
  io::NamedTensors tensors;
  hub::DatasetMeta meta{.description = "cross-validation " + cv + ": each metric's value per fold",
                        .values = {{"cv", cv}, {"folds", std::to_string(by_fold.size())}}};
  for (const auto& [name, column] : values) {
    const double n = static_cast<double>(column.size());
    double mean = 0, var = 0;
    for (double v : column) mean += v / n;
    for (double v : column) var += (v - mean) * (v - mean) / n;
    const double std = std::sqrt(var);
    out["metrics"][name] = {{"mean", mean}, {"std", std}, {"values", column}};
    meta.values[name + ".mean"] = json(mean).dump();
    meta.values[name + ".std"] = json(std).dump();
    tensors.emplace_back(name, from_vector(column));
  }
  STRATA_CHECK(!tensors.empty(), who, ": no metric was reported by every fold");
  ctx.outputs.save_dataset(summary, tensors, meta);
  return out;
}

}  // namespace

Plan cross_validation_plan(const CrossValidationSpec& spec) {
  const std::string who = "cross-validation \"" + spec.name + "\"";
  STRATA_CHECK(!spec.kind.empty(), who, ": no fold kind");
  STRATA_CHECK(!spec.aggregate_kind.empty(), who, ": no aggregate kind");
  STRATA_CHECK(spec.config.is_object(), who, ": \"config\" must be an object, got ", spec.config.dump());
  STRATA_CHECK(spec.folds >= 2 && spec.folds <= spec.examples, who, ": folds must be in [2, examples = ",
               std::to_string(spec.examples), "], got ", std::to_string(spec.folds));
  check_limit(who, "tasks (folds and the aggregate)", static_cast<uint64_t>(spec.folds) + 1, "max_plan_tasks",
              limits().max_plan_tasks);
  // Every fold task holds the indices of all examples (int64) in memory.
  uint64_t index_bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(spec.examples), sizeof(int64_t), &index_bytes)) index_bytes = UINT64_MAX;
  check_limit(who + ": the indices of its examples", "tensor bytes", index_bytes, "max_tensor_bytes",
              limits().max_tensor_bytes);
  Plan plan(spec.name);
  std::vector<int64_t> folds;
  for (int64_t f = 0; f < spec.folds; ++f) {
    json p{{"cv", spec.name}, {"fold", f}, {"folds", spec.folds}, {"examples", spec.examples}, {"config", spec.config}};
    if (spec.shuffle_seed) p["shuffle_seed"] = *spec.shuffle_seed;
    folds.push_back(plan.add({.kind = spec.kind, .params = p.dump(), .name = "fold" + std::to_string(f),
                              .input_dataset = spec.input_dataset, .model = spec.model, .priority = spec.priority,
                              .tags = spec.tags, .max_attempts = spec.max_attempts}));
  }
  const std::string summary = spec.summary_dataset.empty() ? spec.name : spec.summary_dataset;
  plan.add({.kind = spec.aggregate_kind, .params = json{{"cv", spec.name}, {"summary", summary}}.dump(),
            .name = "aggregate", .output_dataset = summary, .after = folds, .priority = spec.priority,
            .tags = spec.tags, .max_attempts = spec.max_attempts});
  return plan;
}

TaskKind fold_kind(std::string name, FoldFn fn) {
  STRATA_CHECK(static_cast<bool>(fn), "fold_kind: kind \"", name, "\" has no fold function");
  return {.name = std::move(name),
          .params = {{.name = "cv", .type = ParamType::string, .required = true},
                     {.name = "fold", .type = ParamType::integer, .required = true},
                     {.name = "folds", .type = ParamType::integer, .required = true},
                     {.name = "examples", .type = ParamType::integer, .required = true},
                     {.name = "shuffle_seed", .type = ParamType::integer},
                     {.name = "config", .type = ParamType::object, .default_value = json::object()}},
          .fn = [fn = std::move(fn)](TaskContext& ctx) { return run_fold(fn, ctx); },
          .help = "a cross-validation fold (workflow::fold_kind)"};
}

TaskKind cross_validation_aggregate_kind(std::string name) {
  return {.name = std::move(name),
          .params = {{.name = "cv", .type = ParamType::string, .required = true},
                     {.name = "summary", .type = ParamType::string, .required = true}},
          .fn = run_aggregate,
          .help = "the mean and standard deviation of a cross-validation's fold metrics"};
}

CrossValidationSpec CrossValidationSpec::from_json(const json& j) {
  CrossValidationSpec s;
  s.name = SpecFields::name_in(j, s.name);
  const std::string who = "cross-validation \"" + s.name + "\"";
  SpecFields(who)
      .text("name", s.name)
      .text("kind", s.kind)
      .text("model", s.model)
      .text("input_dataset", s.input_dataset)
      .integer("examples", s.examples)
      .integer("folds", s.folds)
      .custom("shuffle_seed",
              [&](const json& v) {
                STRATA_CHECK(v.is_number_unsigned(), who, ": \"shuffle_seed\" must be a non-negative integer, got ", v.dump());
                s.shuffle_seed = v.get<uint64_t>();
              })
      .object("config", s.config)
      .text("summary_dataset", s.summary_dataset)
      .text("aggregate_kind", s.aggregate_kind)
      .task_options(s.tags, s.max_attempts, s.priority)
      .read(j);
  STRATA_CHECK(!s.kind.empty(), who, ": needs a \"kind\" (the fold kind)");
  STRATA_CHECK(j.contains("examples"), who, ": needs \"examples\" (how many rows the folds split)");
  return s;
}

}  // namespace strata::workflow
