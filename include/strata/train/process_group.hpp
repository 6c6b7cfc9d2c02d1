// ProcessGroup: the processes that train one model together (data parallelism), as fit() sees
// them. train knows only this interface; dist::DataParallel implements it over MPI. A model
// passed to fit() that is also a ProcessGroup makes fit:
//   - give each process its slice of every batch (all processes draw the same shuffled batches,
//     so the global batch is the one a single process would train on), scaling each slice's
//     loss so that the averaged gradient is the gradient of the whole batch's mean loss;
//   - average each epoch's logs (loss, metrics, validation) over the processes;
//   - print progress and run rank-0-only callbacks (hub logging, checkpoints, CSV) on rank 0;
//   - with gradient accumulation, make all but the last backward pass of a step under
//     accumulate_locally(), so that the step communicates once.
#pragma once
#include <memory>
#include <vector>

namespace strata::nn {
class Layer;
}

namespace strata::train {

// Held while backward passes may skip averaging (ProcessGroup::accumulate_locally).
class LocalAccumulation {
 public:
  virtual ~LocalAccumulation() = default;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;  // 0 .. size() - 1
  virtual int size() const = 0;
  // Replaces each value by its mean over the processes; every process passes the same count.
  virtual void average(std::vector<double>& values) const = 0;
  // While the returned object lives, backward passes may only add to each process's own
  // gradients; the first backward pass after it must leave the average over the processes of
  // the sums. The default returns nothing, and every pass averages: the same gradients, with
  // more communication.
  virtual std::unique_ptr<LocalAccumulation> accumulate_locally() { return nullptr; }
};

// The model's process group, or nullptr for a model trained by one process.
const ProcessGroup* process_group_of(const nn::Layer& model);
ProcessGroup* process_group_of(nn::Layer& model);

}  // namespace strata::train
