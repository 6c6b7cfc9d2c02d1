#include "strata/train/fit.hpp"

#include <set>
#include <string>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/nn/eval_scope.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/loss.hpp"
#include "strata/optim/optimizer.hpp"
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
  STRATA_CHECK(options.batch_size >= 1, "fit: batch_size must be >= 1, got ", options.batch_size);
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

  History history;
  TrainingState state;
  state.model = &model;
  state.optimizer = &optimizer;
  state.history = &history;
  state.epochs = options.epochs;
  state.steps_per_epoch = (train.size() + options.batch_size - 1) / options.batch_size;
  AttachedCallbacks callbacks(options.callbacks, &state);

  for (const auto& cb : *callbacks) cb->on_train_begin();
  Logs logs;
  for (int64_t epoch = 0; epoch < options.epochs && !state.stop_requested; ++epoch) {
    for (const auto& cb : *callbacks) cb->on_epoch_begin(epoch);
    const double lr = optimizer.learning_rate();
    model.train();
    Mean loss_mean;
    for (const auto& m : metrics) m->reset();
    const auto seed = options.shuffle ? std::optional<uint64_t>(options.seed + epoch) : std::nullopt;
    const Data::Batches batches = train.batches(options.batch_size, seed);
    std::optional<ProgressBar> bar;
    if (options.verbose > 0)
      bar.emplace(batches.count, "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs),
                  *options.out);

    int64_t steps_done = 0;
    for (int64_t step = 0; step < batches.count && !state.stop_requested; ++step, ++steps_done) {
      const auto [x, y] = batches.get(step);
      const Tensor outputs = model(x);
      const Tensor batch_loss = scalar_loss(loss, outputs, y, "fit");
      optimizer.zero_grad();
      batch_loss.backward();
      optimizer.step();
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
