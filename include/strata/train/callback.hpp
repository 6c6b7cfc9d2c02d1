// Callback: code that fit() runs at fixed points of training (Keras's callbacks): to log, to
// change the learning rate, to save or restore weights, or to stop training early. Override
// the hooks you need; each sees the model, the optimizer and the history through state().
//
// Order of calls: on_train_begin; per epoch: on_epoch_begin, on_batch_end after each batch,
// on_epoch_end after validation; on_train_end (also after a stop). Epochs and steps count
// from 0; steps within an epoch. Callbacks run in the order given, and may add keys to an
// epoch's logs for the callbacks after them and for the History.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/train/history.hpp"

namespace strata::nn {
class Layer;
}
namespace strata::optim {
class Optimizer;
}

namespace strata::train {

// What fit() shares with its callbacks while it runs.
struct TrainingState {
  nn::Layer* model = nullptr;
  optim::Optimizer* optimizer = nullptr;
  const History* history = nullptr;  // the epochs finished so far
  int64_t epochs = 0;                // as asked for
  int64_t initial_epoch = 0;         // the first epoch of this fit (FitOptions::initial_epoch)
  uint64_t seed = 0;                 // FitOptions::seed: epoch e is shuffled with seed + e
  int64_t steps_per_epoch = 0;
  int64_t global_step = 0;           // batches trained so far, over all epochs
  bool stop_requested = false;
};

class Callback {
 public:
  virtual ~Callback() = default;

  virtual void on_train_begin() {}
  virtual void on_train_end(const Logs& last_epoch_logs) {}
  virtual void on_epoch_begin(int64_t epoch) {}
  virtual void on_epoch_end(int64_t epoch, Logs& logs) {}
  // `logs`: the running means over this epoch so far (what the progress bar shows) and "lr".
  virtual void on_batch_end(int64_t step, const Logs& logs) {}

  // True for callbacks that write outside the process (logs, files, the hub): with a
  // data-parallel model (train/process_group.hpp) fit runs them on rank 0 only.
  virtual bool rank_zero_only() const { return false; }

  // fit() attaches its state before on_train_begin and detaches it after on_train_end.
  void attach(TrainingState* state) { state_ = state; }

 protected:
  // Throws strata::Error outside fit().
  TrainingState& state() const;
  nn::Layer& model() const;
  optim::Optimizer& optimizer() const;
  // Ends training after the current epoch (after the current batch if called from on_batch_end).
  void stop_training() const { state().stop_requested = true; }

 private:
  TrainingState* state_ = nullptr;
};

using CallbackList = std::vector<std::shared_ptr<Callback>>;

}  // namespace strata::train
