// ModelStatistics: what one served model version has done since it was loaded, as the inference
// protocol's statistics extension (Triton's GET /v2/models/NAME/stats) reports it: requests
// answered and failed, rows inferred, model runs, and the time spent queued, preparing inputs,
// running and cutting outputs, overall and per batch size. execution_count against
// inference_count says how well dynamic batching is batching. Thread-safe; a version loaded
// again (a followed model moving back to it) starts from zero, as in Triton.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace strata::serve {

// A count and the total time of what it counts.
struct DurationStat {
  uint64_t count = 0;
  uint64_t ns = 0;

  void add(std::chrono::nanoseconds duration, uint64_t times = 1);
};

// One model run's phases: concatenating the requests' inputs, the model, cutting the outputs.
struct ExecutionTimes {
  std::chrono::nanoseconds input{0}, infer{0}, output{0};
};

struct BatchStats {
  DurationStat compute_input, compute_infer, compute_output;
};

struct StatisticsSnapshot {
  int64_t last_inference_ms = 0;  // since the epoch; 0: no request yet
  uint64_t inference_count = 0;   // rows of successful runs
  uint64_t execution_count = 0;   // successful runs of the model
  // Per request: success and fail its whole time in the server, queue its wait for a worker,
  // compute_* the run it was part of (a request batched with others counts the whole run).
  DurationStat success, fail, queue, compute_input, compute_infer, compute_output;
  std::map<int64_t, BatchStats> batches;  // by rows per run, for successful runs
  uint64_t pending = 0;                   // requests queued now, their batch not begun (a gauge)
};

class ModelStatistics {
 public:
  // A run of `requests` requests with `rows` rows in all; `queued` is their summed wait.
  void record_execution(int64_t rows, uint64_t requests, std::chrono::nanoseconds queued, const ExecutionTimes& times);
  // A request entered the batcher's queue; `count` requests left it for a batch.
  void record_queued();
  void record_dequeued(uint64_t count);
  // A request answered (`ok`) or refused after its model was found, `took` from when its body was read.
  void record_request(bool ok, std::chrono::nanoseconds took);
  StatisticsSnapshot snapshot() const;

 private:
  mutable std::mutex mutex_;
  StatisticsSnapshot stats_;
};

}  // namespace strata::serve
