// DynamicBatcher: the bounded queue of inference requests and the workers that run them.
// Requests for the same model version that arrive within `max_queue_delay` of the oldest waiting
// one are concatenated along the batch axis (up to `max_batch_size` rows), run as one batch, and
// each gets its own rows of the outputs back. A request waits in the queue, and counts against
// `max_queue`, until a worker starts its batch.
//
// Only the workers run models, each with a fixed share of the cores as its OpenMP team
// (intra_op_threads_share(workers)): the teams together stay within the cores, so
// libgomp's idle threads spin between the model's parallel regions instead of sleeping. A run on
// the thread that received the request would save a thread hand-off but give every HTTP thread a
// team of its own, and then every region slept and woke its team: a CNN's batch-1 run took twice
// its time (docs/serving.md, "One OpenMP team per core").
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/serve/served_version.hpp"

namespace strata::serve {

struct BatchingOptions {
  int64_t max_batch_size = 32;  // rows per run; 1 runs every request on its own (no batching)
  std::chrono::microseconds max_queue_delay{0};
  size_t max_queue = 256;  // requests waiting; one more is refused with 503
  int workers = 1;         // each runs its own replica of the model (ServedVersion::replicas)
};

class DynamicBatcher {
 public:
  explicit DynamicBatcher(BatchingOptions options);
  ~DynamicBatcher();  // drain() and join the workers

  // Queues `inputs` (every one with the same batch size, in the model's input order) and returns
  // the future outputs. Throws RequestError 503 when the queue is full or the batcher draining.
  std::future<std::vector<Tensor>> submit(std::shared_ptr<const ServedVersion> model, std::vector<Tensor> inputs);
  // From now on runs what is queued without waiting for fuller batches and refuses new requests.
  void drain();

 private:
  struct Job {
    std::shared_ptr<const ServedVersion> model;
    std::vector<Tensor> inputs;
    int64_t rows;
    std::chrono::steady_clock::time_point queued_at;
    std::promise<std::vector<Tensor>> outputs;
  };
  void work(size_t replica, int threads);
  std::vector<Job> take_batch(std::unique_lock<std::mutex>& lock);

  BatchingOptions options_;
  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<Job> queue_;
  bool draining_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace strata::serve
