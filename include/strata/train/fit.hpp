// fit / evaluate / predict: the Keras training loop for any nn::Layer (a Module, a Sequential,
// a single layer) with any optimizer and loss.
//   train::History h = train::fit(net, adam, {}, {x_train, y_train},
//                                 {.epochs = 10, .batch_size = 128, .validation_data = {x_val, y_val}});
//   Tensor logits = train::predict(net, x_test);
//
// The optimizer is made from the model's weights, which exist once the model has been called
// (layers build lazily): call the model on a batch (or a single example) before making it.
#pragma once
#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/data/dataset.hpp"
#include "strata/data/stream.hpp"
#include "strata/train/callback.hpp"
#include "strata/train/history.hpp"
#include "strata/train/metrics.hpp"

namespace strata::nn {
class Layer;
}
namespace strata::optim {
class Optimizer;
}

namespace strata::train {

// loss(outputs, targets) -> a scalar, or one loss per example ([N], as Keras's losses or
// Strata's with Reduction::none), which fit and evaluate average over the rows, weighing them
// first by class_weight and sample weights if given. An empty LossFn ({}) means softmax
// cross-entropy with int64 class ids or probability rows as targets (strata::cross_entropy).
using LossFn = std::function<Tensor(const Tensor& outputs, const Tensor& targets)>;

// Examples (x, y): two tensors sharing axis 0, a Dataset whose examples are {x, y} (batched
// with the data module's Dataset::batch), or a Stream of such examples (read in its own order,
// batched with Stream::batch; possibly without end: see FitOptions::steps_per_epoch). predict
// also takes examples of x alone. Keras's sample_weight: a third tensor, one float weight per
// example ([N] beside x and y, or each example's third tensor, a scalar), by which fit weighs
// each example's loss (FitOptions::class_weight says how).
// Default-constructed: no data.
class Data {
 public:
  Data() = default;
  Data(Tensor x, Tensor y);
  Data(Tensor x, Tensor y, Tensor sample_weight);
  Data(data::Dataset dataset);  // NOLINT: implicit, so a Dataset passes where Data is expected
  Data(data::Stream stream);    // NOLINT: the same for a Stream

  bool empty() const { return size() == 0; }
  // The number of examples; -1 for a stream (not known before it is read).
  int64_t size() const;
  // The number of batches of `batch_size` in one pass (the last may be short); -1 for a stream.
  int64_t batch_count(int64_t batch_size) const;

  // Rows of examples; y is undefined for examples of x alone, sample_weight when they have none.
  struct Batch {
    Tensor x, y, sample_weight;
  };
  // One pass in batches, read in order: the rows' own order, or a permutation drawn from
  // `shuffle_seed` (a stream keeps its own order: shuffle it with Stream::shuffle).
  struct Batches {
    int64_t count = 0;  // -1 for a stream
    // The next batch; nothing after the last.
    std::function<std::optional<Batch>()> next;
  };
  Batches batches(int64_t batch_size, std::optional<uint64_t> shuffle_seed = std::nullopt) const;
  // The first examples and the last `fraction` of them, in order (Keras's validation_split).
  // Not for a stream.
  std::pair<Data, Data> split_tail(double fraction) const;

 private:
  Tensor x_, y_, sample_weight_;
  std::optional<data::Dataset> dataset_;
  std::optional<data::Stream> stream_;
};

// {Accuracy}: what fit and evaluate measure unless told otherwise.
MetricList default_metrics();

struct FitOptions {
  int64_t epochs = 1;
  // > 0: each epoch trains on the next steps_per_epoch batches of one pass over the training
  // data that goes on from epoch to epoch (Keras's steps_per_epoch; what a stream without end
  // needs). If the data ends before an epoch's last batch, that epoch ends there and fit stops,
  // saying so on `out` (Keras 3's "ran out of data"). 0: an epoch is one whole pass.
  int64_t steps_per_epoch = 0;
  // The first epoch to train (Keras's initial_epoch): a resumed run trains epochs initial_epoch
  // .. epochs - 1 with their shuffles and epoch numbers (lifecycle/resume.hpp sets it).
  int64_t initial_epoch = 0;
  int64_t batch_size = 32;
  Data validation_data;
  // Or: validate on this last fraction of the training data, cut off before any shuffling.
  double validation_split = 0;
  // Gradient accumulation (Keras's gradient_accumulation_steps, Lightning's
  // accumulate_grad_batches): one optimizer step every N batches, on the gradient of the mean
  // loss over all their rows, as one batch of N * batch_size rows would give; what sees the
  // batch itself (BatchNorm's statistics, metrics, callbacks' on_batch_end) still sees
  // batch_size rows. An epoch's last group may have fewer batches and still steps; a stop
  // requested by a callback inside a group drops that group's gradients. Like data parallelism,
  // it takes the loss to be a mean over rows.
  int64_t gradient_accumulation_steps = 1;
  // > 0: before each optimizer step, the gradients are scaled down so that their total 2-norm
  // is at most this (optim::clip_grad_norm; Keras's global_clipnorm, Lightning's
  // gradient_clip_val). Under accumulation, the step's summed gradient is what is clipped.
  double clip_grad_norm = 0;
  // > 0: before each optimizer step (after clip_grad_norm, as Keras orders them), every gradient
  // element is clamped into [-clip_grad_value, clip_grad_value] (optim::clip_grad_value; Keras's
  // clipvalue, Lightning's gradient_clip_algorithm="value").
  double clip_grad_value = 0;
  // Keras's class_weight: with int64 class ids as targets, each training row's loss is multiplied
  // by class_weight[its class] before the mean over the batch (an under-represented class can
  // weigh more). Empty: every class weighs 1. Sample weights in the training data (Data)
  // multiply it too, with any targets; the mean divides by the rows, not by the weights' sum
  // (Keras's sum_over_batch_size). Both need the default loss or a loss function that returns
  // one loss per example. evaluate, and so the validation, weighs its loss by its data's sample
  // weights, not by class_weight; metrics are not weighted.
  std::vector<double> class_weight;
  // bf16 mixed precision (docs/mixed_precision.md; PyTorch's autocast to bfloat16): each training
  // step runs in an AutocastBF16 scope, matmul, dense, convolution and recurrent cells in bf16
  // with float32 master weights, losses, reductions and optimizer state. Where the CPU has no
  // native bf16 it trains in float32 after one warning (STRATA_BF16_EMULATE=1 runs oneDNN's
  // emulated bf16 instead); each epoch's logs say which ran: "bf16" is 1 or 0.
  bool bf16_mixed_precision = false;
  // A static model (nn::Model) trains through a compiled training step (nn/compiled_training.hpp,
  // docs/compiled_models.md): convolutions, Dense layers and pools as prepared oneDNN forward and
  // backward kernels, a plan per batch shape, other layers eagerly with autograd. The same
  // weights as eager fit within float rounding. Refused (strata::Error saying why) for a model
  // that is not an nn::Model, with bf16 mixed precision and for a data-parallel model.
  bool compiled = false;
  bool shuffle = true;
  uint64_t seed = 0;  // epoch e is shuffled with seed + e: the same run gives the same batches
  // Run on every training batch and on the validation data; names must differ.
  MetricList metrics = default_metrics();
  CallbackList callbacks;
  int verbose = 1;  // 0: silent; 1: a progress bar per epoch (plain lines when not a terminal)
  std::ostream* out = &std::cerr;  // where the progress bar goes
};

// Per epoch: train() mode, minibatches (shuffled), zero_grad / backward / step on each (or on
// each group of gradient_accumulation_steps), a progress bar with the running loss and metrics,
// then the validation data evaluated in eval() mode without autograd. Returns every epoch's logs.
// Batches are copied to the model's device (model.to(kCUDA) first to train on a GPU), as are
// evaluate's and predict's; predict's outputs stay there.
// A data-parallel model (a train::ProcessGroup, e.g. dist::DataParallel): each process trains on
// its slice of every batch, logs are averaged, and only rank 0 prints and runs rank_zero_only()
// callbacks (train/process_group.hpp).
History fit(nn::Layer& model, optim::Optimizer& optimizer, const LossFn& loss_fn, const Data& train_data,
            FitOptions options = {});

// The mean loss ("loss"; each row's weighted by the data's sample weights if it has them) and
// each metric's result over `data`, in eval() mode without autograd; the model's mode is
// restored afterwards.
Logs evaluate(nn::Layer& model, const LossFn& loss_fn, const Data& data, int64_t batch_size = 32,
              const MetricList& metrics = default_metrics());
Logs evaluate(nn::Layer& model, const LossFn& loss_fn, const Tensor& x, const Tensor& y, int64_t batch_size = 32,
              const MetricList& metrics = default_metrics());

// The model's outputs for x (batched along axis 0), concatenated, in eval() mode without
// autograd; the model's mode is restored afterwards.
Tensor predict(nn::Layer& model, const Tensor& x, int64_t batch_size = 32);
// The same for every example's x in `data`, in order (Keras's predict on a dataset): its
// examples may be (x, y), whose y is not used, or x alone; a stream is read to its end.
Tensor predict(nn::Layer& model, const Data& data, int64_t batch_size = 32);

}  // namespace strata::train
