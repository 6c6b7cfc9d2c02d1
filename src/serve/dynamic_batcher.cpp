#include "strata/serve/dynamic_batcher.hpp"

#include <algorithm>
#include <exception>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/ops/combine.hpp"
#include "strata/serve/request_error.hpp"

namespace strata::serve {
namespace {

using Clock = std::chrono::steady_clock;

// The jobs' inputs concatenated along the batch axis, run once, the outputs cut back into rows;
// `times` gets how long each of the three took.
std::vector<std::vector<Tensor>> run_batch(nn::Model& model, const std::vector<const std::vector<Tensor>*>& inputs,
                                           ExecutionTimes& times) {
  NoGradGuard no_grad;
  const auto start = Clock::now();
  if (inputs.size() == 1) {
    std::vector<std::vector<Tensor>> outputs = {model.run(*inputs[0])};
    times.infer = Clock::now() - start;
    return outputs;
  }
  std::vector<Tensor> batch;
  for (size_t i = 0; i < inputs[0]->size(); ++i) {
    std::vector<Tensor> parts;
    for (const auto* job : inputs) parts.push_back((*job)[i]);
    batch.push_back(concat(parts, 0));
  }
  const auto ran = Clock::now();
  const std::vector<Tensor> outputs = model.run(batch);
  const auto cut = Clock::now();
  std::vector<std::vector<Tensor>> split(inputs.size());
  int64_t row = 0;
  for (size_t j = 0; j < inputs.size(); ++j) {
    const int64_t rows = (*inputs[j])[0].size(0);
    for (const Tensor& out : outputs) split[j].push_back(out.narrow(0, row, rows).contiguous());
    row += rows;
  }
  times = {ran - start, cut - ran, Clock::now() - cut};
  return split;
}

}  // namespace

DynamicBatcher::DynamicBatcher(BatchingOptions options) : options_(options) {
  STRATA_CHECK(options_.max_batch_size >= 1, "serve: the max batch size must be at least 1, got ",
               options_.max_batch_size);
  STRATA_CHECK(options_.workers >= 1, "serve: at least one batch worker is needed, got ", options_.workers);
  const int threads = intra_op_threads_share(options_.workers);
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this, i, threads] { work(i, threads); });
}

DynamicBatcher::~DynamicBatcher() {
  drain();
  for (auto& worker : workers_) worker.join();
}

std::future<std::vector<Tensor>> DynamicBatcher::submit(std::shared_ptr<const ServedVersion> model,
                                                        std::vector<Tensor> inputs) {
  const int64_t rows = inputs.at(0).size(0);
  Job job{std::move(model), std::move(inputs), rows, Clock::now(), {}};
  auto outputs = job.outputs.get_future();
  {
    std::lock_guard lock(mutex_);
    if (draining_) throw RequestError(503, "the server is shutting down and accepts no new requests");
    if (queue_.size() >= options_.max_queue)
      throw RequestError(503, "the request queue is full (" + std::to_string(options_.max_queue) +
                                  " requests waiting); retry later");
    queue_.push_back(std::move(job));
    queue_.back().model->statistics.record_queued();
  }
  queued_.notify_one();
  return outputs;
}

void DynamicBatcher::drain() {
  {
    std::lock_guard lock(mutex_);
    draining_ = true;
  }
  queued_.notify_all();
}

std::vector<DynamicBatcher::Job> DynamicBatcher::take_batch(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    queued_.wait(lock, [&] { return !queue_.empty() || draining_; });
    if (queue_.empty()) return {};  // draining and nothing left
    // The longest prefix of the queue that can run as one batch: same model version, rows fit.
    size_t count = 1;
    int64_t rows = queue_.front().rows;
    while (count < queue_.size() && queue_[count].model == queue_.front().model &&
           rows + queue_[count].rows <= options_.max_batch_size)
      rows += queue_[count++].rows;
    const bool cannot_grow = rows >= options_.max_batch_size || count < queue_.size();
    const auto deadline = queue_.front().queued_at + options_.max_queue_delay;
    if (cannot_grow || draining_ || Clock::now() >= deadline) {
      std::vector<Job> batch;
      for (size_t i = 0; i < count; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      batch.front().model->statistics.record_dequeued(count);  // one model version per batch
      // Another worker may take what is left now rather than after this batch.
      if (!queue_.empty()) queued_.notify_one();
      return batch;
    }
    queued_.wait_until(lock, deadline);  // woken early by a new request or drain()
  }
}

void DynamicBatcher::work(size_t replica, int threads) {
  // The worker owns its cores: its clients, if on this machine, must not shrink its team.
  const IntraOpThreadLimit team(threads, FollowLoad::kNo);
  for (;;) {
    std::vector<Job> batch;
    {
      std::unique_lock lock(mutex_);
      batch = take_batch(lock);
    }
    if (batch.empty()) return;
    const auto started = Clock::now();
    std::vector<const std::vector<Tensor>*> inputs;
    std::chrono::nanoseconds queued{0};
    int64_t rows = 0;
    for (const Job& job : batch) {
      inputs.push_back(&job.inputs);
      queued += started - job.queued_at;
      rows += job.rows;
    }
    std::vector<std::vector<Tensor>> outputs;
    std::exception_ptr failure;
    try {
      ExecutionTimes times;
      const ServedVersion& model = *batch.front().model;
      outputs = run_batch(*model.replicas.at(replica), inputs, times);
      model.statistics.record_execution(rows, batch.size(), queued, times);
    } catch (...) {
      failure = std::current_exception();
    }
    for (size_t j = 0; j < batch.size(); ++j) {
      if (failure) batch[j].outputs.set_exception(failure);
      else batch[j].outputs.set_value(std::move(outputs[j]));
    }
  }
}

}  // namespace strata::serve
