#include "strata/train/fit.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/nn/eval_scope.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/loss.hpp"
#include "strata/optim/clip.hpp"
#include "strata/optim/optimizer.hpp"
#include "strata/train/process_group.hpp"
#include "strata/train/progress_bar.hpp"

namespace strata::train {

namespace {

// Detaches fit's state from the callbacks however fit ends.
class AttachedCallbacks {
 public:
  AttachedCallbacks(const CallbackList& callbacks, TrainingState* state) : callbacks_(callbacks) {
    for (const auto& cb : callbacks_) {
      STRATA_CHECK(cb != nullptr, "fit: a callback is null");
      cb->attach(state);
    }
  }
  ~AttachedCallbacks() {
    for (const auto& cb : callbacks_) cb->attach(nullptr);
  }
  const CallbackList& operator*() const { return callbacks_; }

 private:
  const CallbackList& callbacks_;
};

LossFn or_default(const LossFn& loss_fn) {
  if (loss_fn) return loss_fn;
  return [](const Tensor& outputs, const Tensor& targets) { return cross_entropy(outputs, targets); };
}

Tensor scalar_loss(const LossFn& loss_fn, const Tensor& outputs, const Tensor& targets, const char* who) {
  Tensor loss = loss_fn(outputs, targets);
  STRATA_CHECK(loss.defined() && loss.numel() == 1, who, ": the loss function must return a scalar (reduce ",
               "with a mean or sum), got ", loss.defined() ? loss.shape().str() : std::string("an undefined tensor"));
  return loss;
}

int64_t rows(const Tensor& x) { return x.dim() == 0 ? 1 : x.size(0); }

void check_metric_names(const MetricList& metrics, const char* who) {
  std::set<std::string> names = {"loss", "lr"};
  for (const auto& m : metrics) {
    STRATA_CHECK(m != nullptr, who, ": a metric is null");
    STRATA_CHECK(names.insert(m->name()).second, who, ": two metrics, or a metric and the loss, are named '",
                 m->name(), "'");
  }
}

// The loss's mean and each metric's result, by name.
Logs results(const Mean& loss, const MetricList& metrics) {
  Logs logs{{"loss", loss.result()}};
  for (const auto& m : metrics) logs[m->name()] = m->result();
  return logs;
}

// What the progress bar shows, in a fixed order: loss, metrics, then their validation values.
Metrics shown(const Logs& logs, const MetricList& metrics) {
  std::vector<std::string> names = {"loss"};
  for (const auto& m : metrics) names.push_back(m->name());
  Metrics out;
  for (const char* prefix : {"", "val_"})
    for (const auto& name : names)
      if (auto it = logs.find(prefix + name); it != logs.end()) out.emplace_back(it->first, it->second);
  return out;
}

// Under a process group, a batch with fewer rows than processes is skipped: not every process
// would have a row of it. Only an epoch's last batch can be that small.
bool trains_on(int64_t batch_rows, const ProcessGroup* group) {
  return group == nullptr || batch_rows >= group->size();
}

// The batches that make one optimizer step (gradient accumulation; one batch without it): the
// first, one past the last that trains, and the rows of those that train.
struct StepGroup {
  int64_t begin = 0, end = 0, rows = 0;
};

StepGroup step_group_of(int64_t batch, int64_t accumulation, const Data::Batches& batches, int64_t batch_size,
                        int64_t examples, const ProcessGroup* group) {
  StepGroup g;
  g.begin = batch - batch % accumulation;
  for (int64_t i = g.begin; i < std::min(g.begin + accumulation, batches.count); ++i) {
    const int64_t batch_rows = std::min(batch_size, examples - i * batch_size);  // Data::batches' rows
    if (!trains_on(batch_rows, group)) continue;
    g.rows += batch_rows;
    g.end = i + 1;
  }
  return g;
}

// This process's rows of a batch, and the factor on its loss that makes the gradient (averaged
// over the processes, summed over the step's batches) the gradient of the mean loss over the
// step's rows: a mean over n_r rows weighs n_r / step_rows of them, and the average divides by
// the group's size.
struct BatchSlice {
  Tensor x, y;
  double loss_scale = 1;
};

std::optional<BatchSlice> slice_of(const ProcessGroup* group, const Tensor& x, const Tensor& y, int64_t step_rows) {
  if (group == nullptr) return BatchSlice{x, y, static_cast<double>(rows(x)) / static_cast<double>(step_rows)};
  STRATA_CHECK(x.dim() >= 1 && y.defined() && y.dim() >= 1 && y.size(0) == x.size(0),
               "fit: a data-parallel model needs batches of rows (axis 0) in x and y, got x ", x.shape().str(),
               " and y ", y.defined() ? y.shape().str() : std::string("undefined"));
  const int64_t n = x.size(0), size = group->size(), rank = group->rank();
  if (!trains_on(n, group)) return std::nullopt;
  const int64_t begin = n * rank / size, end = n * (rank + 1) / size;
  return BatchSlice{x.narrow(0, begin, end - begin), y.narrow(0, begin, end - begin),
                    static_cast<double>((end - begin) * size) / static_cast<double>(step_rows)};
}

void average_logs(const ProcessGroup* group, Logs& logs) {
  if (group == nullptr) return;
  std::vector<double> values;
  for (const auto& [key, value] : logs) values.push_back(value);  // keys in the same order everywhere
  group->average(values);
  size_t i = 0;
  for (auto& [key, value] : logs) value = values[i++];
}

}  // namespace

MetricList default_metrics() { return {std::make_shared<Accuracy>()}; }

Logs evaluate(nn::Layer& model, const LossFn& loss_fn, const Data& data, int64_t batch_size,
              const MetricList& metrics) {
  STRATA_CHECK(!data.empty(), "evaluate: no data to evaluate on");
  check_metric_names(metrics, "evaluate");
  const LossFn loss = or_default(loss_fn);
  nn::EvalScope eval(model);
  NoGradGuard no_grad;
  Mean loss_mean;
  for (const auto& m : metrics) m->reset();
  const Data::Batches batches = data.batches(batch_size);
  for (int64_t i = 0; i < batches.count; ++i) {
    const auto [x, y] = batches.get(i);
    const Tensor outputs = model(x);
    loss_mean.update(scalar_loss(loss, outputs, y, "evaluate").item_double(), static_cast<double>(rows(x)));
    for (const auto& m : metrics) m->update(outputs, y);
  }
  return results(loss_mean, metrics);
}

Logs evaluate(nn::Layer& model, const LossFn& loss_fn, const Tensor& x, const Tensor& y, int64_t batch_size,
              const MetricList& metrics) {
  return evaluate(model, loss_fn, Data(x, y), batch_size, metrics);
}

Tensor predict(nn::Layer& model, const Tensor& x, int64_t batch_size) {
  STRATA_CHECK(x.defined() && x.dim() >= 1 && x.size(0) > 0, "predict: expected a non-empty batch of inputs [N, ...], got ",
               x.defined() ? x.shape().str() : std::string("an undefined tensor"));
  STRATA_CHECK(batch_size >= 1, "predict: batch_size must be >= 1, got ", batch_size);
  nn::EvalScope eval(model);
  NoGradGuard no_grad;
  std::vector<Tensor> outputs;
  for (int64_t start = 0; start < x.size(0); start += batch_size)
    outputs.push_back(model(x.narrow(0, start, std::min(batch_size, x.size(0) - start))));
  return outputs.size() == 1 ? outputs[0] : concat(outputs, 0);
}

History fit(nn::Layer& model, optim::Optimizer& optimizer, const LossFn& loss_fn, const Data& train_data,
            FitOptions options) {
  STRATA_CHECK(options.epochs >= 0, "fit: epochs must be >= 0, got ", options.epochs);
  STRATA_CHECK(options.initial_epoch >= 0 && options.initial_epoch <= options.epochs,
               "fit: initial_epoch must be in [0, epochs] = [0, ", options.epochs, "], got ", options.initial_epoch);
  STRATA_CHECK(options.batch_size >= 1, "fit: batch_size must be >= 1, got ", options.batch_size);
  STRATA_CHECK(options.gradient_accumulation_steps >= 1, "fit: gradient_accumulation_steps must be >= 1, got ",
               options.gradient_accumulation_steps);
  STRATA_CHECK(options.clip_grad_norm >= 0 && std::isfinite(options.clip_grad_norm),
               "fit: clip_grad_norm must be a finite number >= 0 (0: no clipping), got ", options.clip_grad_norm);
  STRATA_CHECK(!train_data.empty(), "fit: no training data");
  STRATA_CHECK(!optimizer.params().empty(), "fit: the optimizer has no parameters. Layers create their weights ",
               "at their first call: call the model once (e.g. on a batch) before making the optimizer");
  check_metric_names(options.metrics, "fit");
  Data train = train_data, validation = options.validation_data;
  if (options.validation_split > 0) {
    STRATA_CHECK(validation.empty(), "fit: give validation_data or validation_split, not both");
    std::tie(train, validation) = train_data.split_tail(options.validation_split);
  }
  const LossFn loss = or_default(loss_fn);
  const MetricList& metrics = options.metrics;
  ProcessGroup* group = process_group_of(model);
  const bool rank_zero = group == nullptr || group->rank() == 0;
  CallbackList active_callbacks;
  for (const auto& cb : options.callbacks)
    if (rank_zero || cb == nullptr || !cb->rank_zero_only()) active_callbacks.push_back(cb);

  History history;
  TrainingState state;
  state.model = &model;
  state.optimizer = &optimizer;
  state.history = &history;
  state.epochs = options.epochs;
  state.initial_epoch = options.initial_epoch;
  state.seed = options.seed;
  state.steps_per_epoch = (train.size() + options.batch_size - 1) / options.batch_size;
  state.global_step = options.initial_epoch * state.steps_per_epoch;
  AttachedCallbacks callbacks(active_callbacks, &state);

  for (const auto& cb : *callbacks) cb->on_train_begin();
  Logs logs;
  for (int64_t epoch = options.initial_epoch; epoch < options.epochs && !state.stop_requested; ++epoch) {
    for (const auto& cb : *callbacks) cb->on_epoch_begin(epoch);
    const double lr = optimizer.learning_rate();
    model.train();
    Mean loss_mean;
    for (const auto& m : metrics) m->reset();
    const auto seed = options.shuffle ? std::optional<uint64_t>(options.seed + epoch) : std::nullopt;
    const Data::Batches batches = train.batches(options.batch_size, seed);
    std::optional<ProgressBar> bar;
    if (options.verbose > 0 && rank_zero)
      bar.emplace(batches.count, "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs),
                  *options.out);

    int64_t steps_done = 0;
    for (int64_t step = 0; step < batches.count && !state.stop_requested; ++step, ++steps_done) {
      const auto [batch_x, batch_y] = batches.get(step);
      const StepGroup step_group = step_group_of(step, options.gradient_accumulation_steps, batches,
                                                 options.batch_size, train.size(), group);
      const std::optional<BatchSlice> slice = slice_of(group, batch_x, batch_y, step_group.rows);
      if (!slice) continue;
      const Tensor &x = slice->x, &y = slice->y;
      const Tensor outputs = model(x);
      const Tensor batch_loss = scalar_loss(loss, outputs, y, "fit");
      if (step == step_group.begin) optimizer.zero_grad();
      {
        // All but the step's last pass leave their gradients local: the step communicates once.
        std::unique_ptr<LocalAccumulation> local;
        if (group != nullptr && step + 1 < step_group.end) local = group->accumulate_locally();
        if (slice->loss_scale == 1) batch_loss.backward();
        else (batch_loss * slice->loss_scale).backward();
      }
      if (step + 1 == step_group.end) {
        if (options.clip_grad_norm > 0) optim::clip_grad_norm(optimizer.params(), options.clip_grad_norm);
        optimizer.step();
      }
      ++state.global_step;

      loss_mean.update(batch_loss.item_double(), static_cast<double>(rows(x)));
      for (const auto& m : metrics) m->update(outputs, y);
      Logs batch_logs = results(loss_mean, metrics);
      // The last batch is counted once the validation numbers are in: one final line, not two.
      if (bar && step + 1 < batches.count) bar->update(1, shown(batch_logs, metrics));
      batch_logs["lr"] = lr;
      for (const auto& cb : *callbacks) cb->on_batch_end(step, batch_logs);
    }

    logs = results(loss_mean, metrics);
    logs["lr"] = lr;
    if (!validation.empty())
      for (const auto& [key, value] : evaluate(model, loss, validation, options.batch_size, metrics))
        logs["val_" + key] = value;
    average_logs(group, logs);
    if (bar) {
      bar->update(steps_done - bar->done(), shown(logs, metrics));
      bar->finish();
    }
    for (const auto& cb : *callbacks) cb->on_epoch_end(epoch, logs);
    history.append(logs);
  }
  for (const auto& cb : *callbacks) cb->on_train_end(logs);
  return history;
}

}  // namespace strata::train
