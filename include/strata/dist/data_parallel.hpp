// DataParallel: one model trained by every process of the job (PyTorch's DistributedDataParallel,
// Horovod). Each process runs the model on its own slice of the data; the wrapper makes their
// weights equal at the start (rank 0's) and keeps them equal by averaging the gradients before
// every optimizer step:
//   dist::init();
//   MLP net;  net(x_sample);                       // weights exist after the first call
//   dist::DataParallel model(net);                 // rank 0's weights everywhere
//   optim::SGD sgd(model.trainable_weights(), 0.1);
//   train::fit(model, sgd, {}, {x, y}, {.batch_size = 256});   // 256 over all processes
//
// Gradients are averaged in buckets of about bucket_megabytes (the first one smaller; a gradient
// of 1 MiB or more is a bucket of its own, reduced in place without copies), in the reverse
// order of the weights (the order backward produces them). A bucket's non-blocking all-reduce starts from an
// autograd post-accumulate hook as soon as its last gradient is ready, so it runs while backward
// computes the layers below; when the last weight's gradient arrives, backward waits for every
// bucket and writes the averages into .grad(). So after backward() returns, .grad() holds the
// average over the processes and optimizer.step() needs no change.
//
// Gradient accumulation (PyTorch DDP's no_sync): backward passes made while a guard from
// no_sync() lives only add to each process's own .grad(), with no communication; the first
// backward after it averages the sums:
//   { auto local = model.no_sync();  loss(model(x1), y1).backward(); }
//   loss(model(x2), y2).backward();   // .grad(): the average over processes of both passes' sums
//   sgd.step();
//
// Requires: every trainable weight gets a gradient in every backward pass (a weight left out
// is reported by the next forward, naming it); every process runs the same model and calls
// backward equally often. The wrapper is a train::ProcessGroup, so train::fit splits batches,
// averages logs, logs from rank 0 and accumulates gradients under no_sync
// (FitOptions::gradient_accumulation_steps; train/process_group.hpp).
#pragma once
#include <memory>

#include "strata/nn/layer.hpp"
#include "strata/train/process_group.hpp"

namespace strata::dist {

namespace detail {
class GradientBuckets;  // src/dist/gradient_buckets.hpp: holds the MPI requests
}

struct DataParallelOptions {
  double bucket_megabytes = 25;  // PyTorch DDP's bucket_cap_mb: larger, fewer messages
  // The first bucket (the last layers' gradients, ready first) is smaller, as in PyTorch DDP,
  // so that its reduction starts early in backward even when the model fits in one bucket.
  double first_bucket_megabytes = 1;
};

// What the gradient averaging cost so far: `wait_seconds` is the communication backward had
// to wait for at its end (not hidden behind compute).
struct DataParallelStats {
  int64_t buckets = 0;       // per backward pass
  int64_t passes = 0;        // backward passes reduced
  int64_t bytes = 0;         // gradient bytes reduced per pass
  double wait_seconds = 0;   // total over the passes
};

class DataParallel : public nn::Layer, public train::ProcessGroup {
 public:
  // `model` must have its weights (call it once) and outlive the wrapper. Calls dist::init().
  explicit DataParallel(nn::Layer& model, DataParallelOptions options = {});
  ~DataParallel() override;

  nn::Layer& module() const { return model_; }
  DataParallelStats stats() const;

  // While it lives, backward passes leave the gradients where they are (see above): what counts
  // is when backward runs, not the forward. Every process must make the same passes under it.
  // Refused after a backward pass that left weights without a gradient. Guards nest.
  class [[nodiscard]] NoSync {
   public:
    explicit NoSync(detail::GradientBuckets& buckets);
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    detail::GradientBuckets& buckets_;
  };
  NoSync no_sync() { return NoSync(*buckets_); }

  int rank() const override;
  int size() const override;
  void average(std::vector<double>& values) const override;
  // no_sync() for train::fit's gradient_accumulation_steps.
  std::unique_ptr<train::LocalAccumulation> accumulate_locally() override;

 protected:
  Tensor forward(const Tensor& x) override;
  void build_many(const std::vector<Shape>& input_shapes) override {}
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  nn::Layer& model_;
  std::unique_ptr<detail::GradientBuckets> buckets_;
};

}  // namespace strata::dist
