#include "strata/serve/model_statistics.hpp"

namespace strata::serve {

void DurationStat::add(std::chrono::nanoseconds duration, uint64_t times) {
  count += times;
  ns += static_cast<uint64_t>(duration.count()) * times;
}

void ModelStatistics::record_execution(int64_t rows, uint64_t requests, std::chrono::nanoseconds queued,
                                       const ExecutionTimes& times) {
  std::lock_guard lock(mutex_);
  stats_.inference_count += static_cast<uint64_t>(rows);
  stats_.execution_count += 1;
  stats_.queue.count += requests;
  stats_.queue.ns += static_cast<uint64_t>(queued.count());
  stats_.compute_input.add(times.input, requests);
  stats_.compute_infer.add(times.infer, requests);
  stats_.compute_output.add(times.output, requests);
  BatchStats& batch = stats_.batches[rows];
  batch.compute_input.add(times.input);
  batch.compute_infer.add(times.infer);
  batch.compute_output.add(times.output);
}

void ModelStatistics::record_queued() {
  std::lock_guard lock(mutex_);
  ++stats_.pending;
}

void ModelStatistics::record_dequeued(uint64_t count) {
  std::lock_guard lock(mutex_);
  stats_.pending -= count;
}

void ModelStatistics::record_request(bool ok, std::chrono::nanoseconds took) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  std::lock_guard lock(mutex_);
  (ok ? stats_.success : stats_.fail).add(took);
  stats_.last_inference_ms = now.count();
}

StatisticsSnapshot ModelStatistics::snapshot() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace strata::serve
