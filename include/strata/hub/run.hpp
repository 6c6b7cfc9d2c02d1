// A training run's log: metrics per step and split, and user events, buffered in memory and
// written one transaction per batch: when the batch fills (HubOptions::log_batch), at most
// HubOptions::flush_interval after an entry is logged (a background thread per Run that logs),
// on flush(), finish(), destruction, and when the program exits.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::hub {

namespace detail {
struct HubState;
}

enum class Split { train, validation, test };
inline constexpr Split kSplits[] = {Split::train, Split::validation, Split::test};  // every one
const char* split_name(Split s);  // "train", "validation", "test"
Split parse_split(const std::string& name);  // the inverse; throws strata::Error for another name

struct MetricPoint {
  int64_t step = 0;
  double value = 0;
  double time = 0;  // seconds since the Unix epoch, when logged
};

// A series as a chart shows it (Hub::metric_sample): whole, or thinned to about the points a
// chart has room for.
struct MetricSample {
  std::vector<MetricPoint> points;  // by step, then time
  bool thinned = false;             // true when the series has more points than these
};

struct Event {
  int64_t id = 0;
  std::string kind;
  std::string payload;  // JSON
  double time = 0;
};

struct RunInfo {
  int64_t id = 0;
  std::string name;
  std::string status;  // "running", then what finish() was given
  std::string config;  // JSON
  double created_at = 0;
  double finished_at = 0;  // 0 while running
};

// Made by Hub::create_run. log() and event() may be called from several threads.
class Run {
 public:
  struct Pending;  // the buffer and its flusher (run_log.cpp)
  Run(Run&&) noexcept;
  Run& operator=(Run&&) noexcept;
  ~Run();  // flushes; errors are swallowed here (call flush() to see them)

  int64_t id() const { return id_; }
  void log(int64_t step, Split split, const std::string& name, double value);
  void log(int64_t step, Split split, const std::map<std::string, double>& values);
  // A user-defined event; `payload_json` must be valid JSON.
  void event(const std::string& kind, const std::string& payload_json = "{}");
  void flush();
  // Flushes and records the status and finish time in the same transaction.
  void finish(const std::string& status = "finished");

 private:
  friend class Hub;
  Run(std::shared_ptr<detail::HubState> state, int64_t id);

  std::shared_ptr<detail::HubState> state_;
  int64_t id_ = 0;
  std::unique_ptr<Pending> pending_;
};

}  // namespace strata::hub
