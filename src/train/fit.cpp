#include "strata/train/fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/autocast.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/compiled_training.hpp"
#include "strata/nn/eval_scope.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/loss.hpp"
#include "strata/ops/reduce.hpp"
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

int64_t rows(const Tensor& x) { return x.dim() == 0 ? 1 : x.size(0); }

// A batch's loss as fit and evaluate take it. The loss function's value is a scalar, or one loss
// per example ([N]: Keras's losses, or Strata's with Reduction::none), whose mean over the rows
// is the loss; without a loss function, softmax cross-entropy. Per-example losses are first
// weighed by each row's class weight (class_weight) and sample weight, if any (Keras's
// sum_over_batch_size: the mean divides by the rows, not by the weights' sum). `who` ("fit",
// "evaluate") starts errors.
class BatchLoss {
 public:
  BatchLoss(LossFn loss_fn, const std::vector<double>& class_weight, const char* who)
      : loss_fn_(std::move(loss_fn)), who_(who) {
    for (double w : class_weight)
      STRATA_CHECK(std::isfinite(w) && w >= 0, who_, ": class_weight must hold finite weights >= 0, got ", w);
    if (!class_weight.empty()) class_weights_ = from_vector(class_weight);
  }

  Tensor operator()(const Tensor& outputs, const Tensor& targets, const Tensor& sample_weight) const {
    STRATA_CHECK(targets.defined(), who_, ": the examples have no targets (each is x alone): give examples (x, y)");
    const bool weighed = class_weights_.defined() || sample_weight.defined();
    if (!loss_fn_ && !weighed) return cross_entropy(outputs, targets);
    Tensor per_row = loss_fn_ ? loss_fn_(outputs, targets) : cross_entropy(outputs, targets, Reduction::none);
    STRATA_CHECK(per_row.defined(), who_, ": the loss function returned an undefined tensor");
    const int64_t n = rows(outputs);
    if (!(per_row.dim() == 1 && per_row.size(0) == n)) {
      STRATA_CHECK(per_row.numel() == 1, who_, ": the loss function must return a scalar or one loss per example, [",
                   n, "], got ", per_row.shape().str());
      STRATA_CHECK(!weighed, who_, ": the loss function returns a scalar, so the rows cannot be weighed: return ",
                   "one loss per example, [", n, "] (e.g. with Reduction::none), to use class_weight or sample ",
                   "weights");
      return per_row;
    }
    if (class_weights_.defined()) {
      STRATA_CHECK(targets.dtype() == kInt64 && targets.dim() == 1, who_, ": class_weight needs int64 class ids [N] ",
                   "as targets, got ", dtype_name(targets.dtype()), " ", targets.shape().str());
      per_row = per_row * cast(index_select(class_weights_.to(targets.device()), 0, targets), per_row.dtype());
    }
    if (sample_weight.defined()) per_row = per_row * checked_sample_weight(sample_weight, per_row);
    return mean(per_row);
  }

 private:
  // A batch's sample weights as per_row's dtype, refused unless one finite weight >= 0 per row.
  Tensor checked_sample_weight(const Tensor& weight, const Tensor& per_row) const {
    STRATA_CHECK(is_floating(weight.dtype()) && weight.dim() == 1 && weight.size(0) == per_row.size(0), who_,
                 ": sample weights must be floating point, one per example: [", per_row.size(0), "], got ",
                 dtype_name(weight.dtype()), " ", weight.shape().str());
    for (double w : weight.to(kCPU).to_vector<double>())
      STRATA_CHECK(std::isfinite(w) && w >= 0, who_, ": sample weights must be finite and >= 0, got ", w);
    return cast(weight, per_row.dtype());
  }

  LossFn loss_fn_;  // empty: softmax cross-entropy
  const char* who_;
  Tensor class_weights_;  // undefined: every class weighs 1
};

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
// would have a row of it. Only a pass's last batch can be that small.
bool trains_on(int64_t batch_rows, const ProcessGroup* group) {
  return group == nullptr || batch_rows >= group->size();
}

using Batch = Data::Batch;

// A batch moved to the model's device (Lightning's transfer to the module's device), so a model
// moved with to(kCUDA) trains and evaluates on host data; no copy when it is already there.
Batch on_device(const Batch& batch, Device device) {
  const auto to_device = [device](const Tensor& t) { return t.defined() ? t.to(device) : t; };
  return {batch.x.to(device), to_device(batch.y), to_device(batch.sample_weight)};
}

// The training batches, epoch by epoch. Without steps_per_epoch each epoch is a fresh pass
// (shuffled with seed + epoch). With it, one pass goes on from epoch to epoch: data of known size
// starts a new pass when one ends; the end of a stream is the end of the training data.
class TrainingBatches {
 public:
  TrainingBatches(const Data& data, const FitOptions& options, Device device)
      : data_(data), options_(options), device_(device) {}

  // Starts `epoch` and returns how many batches it will have (-1: not known, a stream's pass).
  int64_t begin_epoch(int64_t epoch) {
    epoch_ = epoch;
    taken_ = 0;
    if (options_.steps_per_epoch == 0 || !pass_) open_pass();
    return options_.steps_per_epoch > 0 ? options_.steps_per_epoch : pass_->count;
  }
  // The epoch's next batch; nothing after its last.
  std::optional<Batch> next() {
    if (options_.steps_per_epoch > 0 && taken_ == options_.steps_per_epoch) return std::nullopt;
    std::optional<Batch> batch = pass_->next();
    if (!batch && options_.steps_per_epoch > 0 && pass_->count > 0) {
      open_pass();
      batch = pass_->next();
    }
    if (!batch) {
      ran_out_ = options_.steps_per_epoch > 0;
      return std::nullopt;
    }
    ++taken_;
    return on_device(*batch, device_);
  }
  // The data ended before an epoch's steps_per_epoch batches.
  bool ran_out() const { return ran_out_; }

 private:
  void open_pass() {
    pass_ = data_.batches(options_.batch_size,
                          options_.shuffle ? std::optional<uint64_t>(options_.seed + epoch_) : std::nullopt);
  }

  const Data& data_;
  const FitOptions& options_;
  Device device_;
  std::optional<Data::Batches> pass_;
  int64_t epoch_ = 0, taken_ = 0;
  bool ran_out_ = false;
};

// The batches of one optimizer step: gradient_accumulation_steps of them, fewer at the epoch's end.
std::vector<Batch> read_step(TrainingBatches& batches, int64_t accumulation) {
  std::vector<Batch> step;
  while (static_cast<int64_t>(step.size()) < accumulation) {
    std::optional<Batch> batch = batches.next();
    if (!batch) break;
    step.push_back(std::move(*batch));
  }
  return step;
}

// This process's rows of a batch, and the factor on its loss that makes the gradient (averaged
// over the processes, summed over the step's batches) the gradient of the mean loss over the
// step's rows: a mean over n_r rows weighs n_r / step_rows of them, and the average divides by
// the group's size.
struct BatchSlice {
  Tensor x, y, sample_weight;
  double loss_scale = 1;
};

std::optional<BatchSlice> slice_of(const ProcessGroup* group, const Batch& batch, int64_t step_rows) {
  const auto& [x, y, sample_weight] = batch;
  if (group == nullptr)
    return BatchSlice{x, y, sample_weight, static_cast<double>(rows(x)) / static_cast<double>(step_rows)};
  STRATA_CHECK(x.dim() >= 1 && y.defined() && y.dim() >= 1 && y.size(0) == x.size(0),
               "fit: a data-parallel model needs batches of rows (axis 0) in x and y, got x ", x.shape().str(),
               " and y ", y.defined() ? y.shape().str() : std::string("undefined"));
  const int64_t n = x.size(0), size = group->size(), rank = group->rank();
  if (!trains_on(n, group)) return std::nullopt;
  const int64_t begin = n * rank / size, end = n * (rank + 1) / size;
  return BatchSlice{x.narrow(0, begin, end - begin), y.narrow(0, begin, end - begin),
                    sample_weight.defined() ? sample_weight.narrow(0, begin, end - begin) : sample_weight,
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

// The model's outputs for each input `next_input` gives until it gives nothing, concatenated
// along axis 0, in eval() mode without autograd (the model's mode restored afterwards).
Tensor predict_each(nn::Layer& model, const std::function<std::optional<Tensor>()>& next_input) {
  nn::EvalScope eval(model);
  NoGradGuard no_grad;
  std::vector<Tensor> outputs;
  while (const std::optional<Tensor> x = next_input()) outputs.push_back(model(x->to(model.device())));
  STRATA_CHECK(!outputs.empty(), "predict: the data gave no batch");
  return outputs.size() == 1 ? outputs[0] : concat(outputs, 0);
}

}  // namespace

MetricList default_metrics() { return {std::make_shared<Accuracy>()}; }

Logs evaluate(nn::Layer& model, const LossFn& loss_fn, const Data& data, int64_t batch_size,
              const MetricList& metrics) {
  STRATA_CHECK(!data.empty(), "evaluate: no data to evaluate on");
  check_metric_names(metrics, "evaluate");
  const BatchLoss loss(loss_fn, {}, "evaluate");  // class_weight is for training only, as in Keras
  nn::EvalScope eval(model);
  NoGradGuard no_grad;
  Mean loss_mean;
  for (const auto& m : metrics) m->reset();
  Data::Batches batches = data.batches(batch_size);
  while (const std::optional<Batch> batch = batches.next()) {
    const auto [x, y, sample_weight] = on_device(*batch, model.device());
    const Tensor outputs = model(x);
    loss_mean.update(loss(outputs, y, sample_weight).item_double(), static_cast<double>(rows(x)));
    for (const auto& m : metrics) m->update(outputs, y);
  }
  STRATA_CHECK(loss_mean.count() > 0, "evaluate: the data gave no batch");
  return results(loss_mean, metrics);
}

Logs evaluate(nn::Layer& model, const LossFn& loss_fn, const Tensor& x, const Tensor& y, int64_t batch_size,
              const MetricList& metrics) {
  return evaluate(model, loss_fn, Data(x, y), batch_size, metrics);
}

Tensor predict(nn::Layer& model, const Tensor& x, int64_t batch_size) {
  STRATA_CHECK(x.defined() && x.dim() >= 1 && x.size(0) > 0,
               "predict: expected a non-empty batch of inputs [N, ...], got ",
               x.defined() ? x.shape().str() : std::string("an undefined tensor"));
  STRATA_CHECK(batch_size >= 1, "predict: batch_size must be >= 1, got ", batch_size);
  int64_t start = 0;
  return predict_each(model, [&]() -> std::optional<Tensor> {
    if (start == x.size(0)) return std::nullopt;
    const int64_t len = std::min(batch_size, x.size(0) - start);
    start += len;
    return x.narrow(0, start - len, len);
  });
}

Tensor predict(nn::Layer& model, const Data& data, int64_t batch_size) {
  STRATA_CHECK(!data.empty(), "predict: no data to predict on");
  STRATA_CHECK(batch_size >= 1, "predict: batch_size must be >= 1, got ", batch_size);
  Data::Batches batches = data.batches(batch_size);
  return predict_each(model, [&]() -> std::optional<Tensor> {
    std::optional<Batch> batch = batches.next();
    if (!batch) return std::nullopt;
    return std::move(batch->x);
  });
}

namespace {

// fit's arguments, checked before anything runs.
void check_fit_options(const FitOptions& options, const Data& train_data, optim::Optimizer& optimizer) {
  STRATA_CHECK(options.epochs >= 0, "fit: epochs must be >= 0, got ", options.epochs);
  STRATA_CHECK(options.initial_epoch >= 0 && options.initial_epoch <= options.epochs,
               "fit: initial_epoch must be in [0, epochs] = [0, ", options.epochs, "], got ", options.initial_epoch);
  STRATA_CHECK(options.batch_size >= 1, "fit: batch_size must be >= 1, got ", options.batch_size);
  STRATA_CHECK(options.gradient_accumulation_steps >= 1, "fit: gradient_accumulation_steps must be >= 1, got ",
               options.gradient_accumulation_steps);
  STRATA_CHECK(options.clip_grad_norm >= 0 && std::isfinite(options.clip_grad_norm),
               "fit: clip_grad_norm must be a finite number >= 0 (0: no clipping), got ", options.clip_grad_norm);
  STRATA_CHECK(options.clip_grad_value >= 0 && std::isfinite(options.clip_grad_value),
               "fit: clip_grad_value must be a finite number >= 0 (0: no clipping), got ", options.clip_grad_value);
  STRATA_CHECK(options.steps_per_epoch >= 0, "fit: steps_per_epoch must be >= 0 (0: a whole pass), got ",
               options.steps_per_epoch);
  STRATA_CHECK(!train_data.empty(), "fit: no training data");
  STRATA_CHECK(!optimizer.params().empty(), "fit: the optimizer has no parameters. Layers create their weights ",
               "at their first call: call the model once (e.g. on a batch) before making the optimizer");
  check_metric_names(options.metrics, "fit");
}

// What a training step needs of fit.
struct StepContext {
  nn::Layer& model;
  optim::Optimizer& optimizer;
  const BatchLoss& loss;
  const FitOptions& options;
  ProcessGroup* group;
  TrainingState& state;
  const CallbackList& callbacks;
  nn::CompiledTrainStep* compiled;  // FitOptions::compiled; null: eager
};

// An epoch as it goes: the running loss, the progress bar, its batches (all, and done so far)
// and the learning rate it started with.
struct EpochProgress {
  Mean loss;
  std::optional<ProgressBar> bar;
  int64_t batches = 0, done = 0;
  double lr = 0;
};

// One optimizer step over `step_batches` (several with gradient accumulation): forward, loss and
// backward on each (on this process's slice of it in a data-parallel job), clipping and the step
// after the last batch that trains, then each batch's figures, progress and callbacks.
void train_step(const StepContext& c, const std::vector<Batch>& step_batches, EpochProgress& epoch) {
  // The step's rows, and its last batch that trains: the one whose backward pass averages.
  int64_t step_rows = 0;
  size_t last_training = step_batches.size();
  for (size_t i = 0; i < step_batches.size(); ++i) {
    if (!trains_on(rows(step_batches[i].x), c.group)) continue;
    step_rows += rows(step_batches[i].x);
    last_training = i;
  }
  c.optimizer.zero_grad();
  for (size_t i = 0; i < step_batches.size() && !c.state.stop_requested; ++i, ++epoch.done) {
    const std::optional<BatchSlice> slice = slice_of(c.group, step_batches[i], step_rows);
    if (!slice) continue;
    const Tensor &x = slice->x, &y = slice->y;
    // bf16 mixed precision: forward, loss and backward in the scope; the step updates float32.
    std::optional<AutocastBF16> autocast;
    if (c.options.bf16_mixed_precision) autocast.emplace();
    // Compiled: the loss's autograd alone, from the outputs as a leaf; the step backpropagates.
    Tensor outputs;
    if (c.compiled)
      outputs = c.compiled->forward(x).requires_grad_(true);
    else
      outputs = c.model(x);
    const Tensor batch_loss = c.loss(outputs, y, slice->sample_weight);
    {
      // All but the step's last pass leave their gradients local: the step communicates once.
      std::unique_ptr<LocalAccumulation> local;
      if (c.group != nullptr && i < last_training) local = c.group->accumulate_locally();
      if (slice->loss_scale == 1) batch_loss.backward();
      else (batch_loss * slice->loss_scale).backward();
      if (c.compiled) c.compiled->backward(outputs.grad());
    }
    autocast.reset();
    if (i == last_training) {
      if (c.options.clip_grad_norm > 0) optim::clip_grad_norm(c.optimizer.params(), c.options.clip_grad_norm);
      if (c.options.clip_grad_value > 0) optim::clip_grad_value(c.optimizer.params(), c.options.clip_grad_value);
      c.optimizer.step();
    }
    ++c.state.global_step;

    epoch.loss.update(batch_loss.item_double(), static_cast<double>(rows(x)));
    for (const auto& m : c.options.metrics) m->update(outputs, y);
    Logs batch_logs = results(epoch.loss, c.options.metrics);
    // The last batch is counted once the validation numbers are in: one final line, not two.
    if (epoch.bar && epoch.done + 1 != epoch.batches) epoch.bar->update(1, shown(batch_logs, c.options.metrics));
    batch_logs["lr"] = epoch.lr;
    for (const auto& cb : c.callbacks) cb->on_batch_end(epoch.done, batch_logs);
  }
}

}  // namespace

// Per epoch: its batches in steps (train_step), then validation, the epoch's logs, the
// callbacks and the history.
History fit(nn::Layer& model, optim::Optimizer& optimizer, const LossFn& loss_fn, const Data& train_data,
            FitOptions options) {
  check_fit_options(options, train_data, optimizer);
  Data train = train_data, validation = options.validation_data;
  if (options.validation_split > 0) {
    STRATA_CHECK(validation.empty(), "fit: give validation_data or validation_split, not both");
    std::tie(train, validation) = train_data.split_tail(options.validation_split);
  }
  const BatchLoss training_loss(loss_fn, options.class_weight, "fit");
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
  state.steps_per_epoch = options.steps_per_epoch > 0 ? options.steps_per_epoch
                                                      : std::max<int64_t>(0, train.batch_count(options.batch_size));
  state.global_step = options.initial_epoch * state.steps_per_epoch;
  AttachedCallbacks callbacks(active_callbacks, &state);
  std::optional<nn::CompiledTrainStep> compiled;
  if (options.compiled) {
    auto* static_model = dynamic_cast<nn::Model*>(&model);
    STRATA_CHECK(static_model, "fit: compiled=true needs a static model (nn::Model); '", model.name(), "' is a ",
                 model.kind());
    STRATA_CHECK(!options.bf16_mixed_precision, "fit: compiled=true does not run bf16 mixed precision yet");
    STRATA_CHECK(group == nullptr, "fit: compiled=true does not train a data-parallel model yet");
    compiled.emplace(nn::compile_training(*static_model));
  }
  const StepContext step{model, optimizer, training_loss, options,
                         group, state,     *callbacks,    compiled ? &*compiled : nullptr};
  TrainingBatches training_batches(train, options, model.device());
  const auto say_ran_out = [&](int64_t epoch, int64_t batches_done) {
    if (rank_zero)
      *options.out << "fit: the training data ran out after " << batches_done << " of epoch " << epoch + 1
                   << "'s " << options.steps_per_epoch << " batches; training stops. Give data of at least "
                   << "steps_per_epoch * epochs batches\n";
  };

  for (const auto& cb : *callbacks) cb->on_train_begin();
  Logs logs;
  for (int64_t epoch = options.initial_epoch; epoch < options.epochs && !state.stop_requested; ++epoch) {
    EpochProgress progress;
    progress.batches = training_batches.begin_epoch(epoch);
    std::vector<Batch> step_batches = read_step(training_batches, options.gradient_accumulation_steps);
    if (step_batches.empty()) {
      STRATA_CHECK(training_batches.ran_out(), "fit: the training data gave no batch");
      say_ran_out(epoch, 0);
      break;
    }
    for (const auto& cb : *callbacks) cb->on_epoch_begin(epoch);
    progress.lr = optimizer.learning_rate();
    model.train();
    for (const auto& m : metrics) m->reset();
    if (options.verbose > 0 && rank_zero)
      progress.bar.emplace(progress.batches,
                           "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(options.epochs), *options.out);
    while (!step_batches.empty()) {
      train_step(step, step_batches, progress);
      if (state.stop_requested) break;
      step_batches = read_step(training_batches, options.gradient_accumulation_steps);
    }

    logs = results(progress.loss, metrics);
    logs["lr"] = progress.lr;
    if (options.bf16_mixed_precision) logs["bf16"] = bf16_autocast_available() ? 1 : 0;
    if (!validation.empty())
      for (const auto& [key, value] : evaluate(model, loss_fn, validation, options.batch_size, metrics))
        logs["val_" + key] = value;
    average_logs(group, logs);
    if (progress.bar) {
      progress.bar->update(progress.done - progress.bar->done(), shown(logs, metrics));
      progress.bar->finish();
    }
    for (const auto& cb : *callbacks) cb->on_epoch_end(epoch, logs);
    history.append(logs);
    if (training_batches.ran_out()) {
      say_ran_out(epoch, progress.done);
      break;
    }
  }
  for (const auto& cb : *callbacks) cb->on_train_end(logs);
  return history;
}

}  // namespace strata::train
