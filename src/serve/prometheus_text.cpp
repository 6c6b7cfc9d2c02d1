#include "prometheus_text.hpp"

#include "strata/core/utf8.hpp"

namespace strata::serve::detail {
namespace {

// A label value as the format quotes it: UTF-8, with backslash, double quote and line feed
// escaped. Model names come from the hub and may hold any byte.
std::string label_value(const std::string& text) {
  std::string quoted;
  for (const char c : valid_utf8(text)) {
    if (c == '\\') quoted += "\\\\";
    else if (c == '"') quoted += "\\\"";
    else if (c == '\n') quoted += "\\n";
    else quoted += c;
  }
  return quoted;
}

struct Metric {
  const char* name;
  const char* type;  // "counter" or "gauge"
  const char* help;
  uint64_t (*value)(const StatisticsSnapshot&);
};

uint64_t us(uint64_t ns) { return ns / 1000; }

}  // namespace

std::string prometheus_text(const std::vector<std::shared_ptr<const ServedVersion>>& versions,
                            const HttpRefusals& refusals) {
  const Metric metrics[] = {
      {"nv_inference_request_success", "counter", "Number of successful inference requests, all batch sizes",
       [](const StatisticsSnapshot& s) { return s.success.count; }},
      {"nv_inference_request_failure", "counter", "Number of failed inference requests, all batch sizes",
       [](const StatisticsSnapshot& s) { return s.fail.count; }},
      {"nv_inference_count", "counter", "Number of inferences performed (rows of successful runs)",
       [](const StatisticsSnapshot& s) { return s.inference_count; }},
      {"nv_inference_exec_count", "counter", "Number of model executions performed",
       [](const StatisticsSnapshot& s) { return s.execution_count; }},
      {"nv_inference_request_duration_us", "counter",
       "Cumulative duration of successful inference requests in microseconds",
       [](const StatisticsSnapshot& s) { return us(s.success.ns); }},
      {"nv_inference_queue_duration_us", "counter",
       "Cumulative time requests spent waiting in the queue in microseconds",
       [](const StatisticsSnapshot& s) { return us(s.queue.ns); }},
      {"nv_inference_compute_input_duration_us", "counter", "Cumulative compute input duration in microseconds",
       [](const StatisticsSnapshot& s) { return us(s.compute_input.ns); }},
      {"nv_inference_compute_infer_duration_us", "counter", "Cumulative compute inference duration in microseconds",
       [](const StatisticsSnapshot& s) { return us(s.compute_infer.ns); }},
      {"nv_inference_compute_output_duration_us", "counter",
       "Cumulative inference compute output duration in microseconds",
       [](const StatisticsSnapshot& s) { return us(s.compute_output.ns); }},
      {"nv_inference_pending_request_count", "gauge", "Instantaneous number of pending requests awaiting execution",
       [](const StatisticsSnapshot& s) { return s.pending; }},
  };
  std::vector<StatisticsSnapshot> snapshots;
  for (const auto& version : versions) snapshots.push_back(version->statistics.snapshot());
  std::string text;
  for (const Metric& metric : metrics) {
    text += std::string("# HELP ") + metric.name + " " + metric.help + "\n";
    text += std::string("# TYPE ") + metric.name + " " + metric.type + "\n";
    for (size_t i = 0; i < versions.size(); ++i)
      text += std::string(metric.name) + "{model=\"" + label_value(versions[i]->name) + "\",version=\"" +
              std::to_string(versions[i]->version) + "\"} " + std::to_string(metric.value(snapshots[i])) + "\n";
  }
  text += "# HELP strata_http_refused_total Requests refused before reaching a model: 408 not received within the "
          "read timeout, 413 a body over the size limit\n"
          "# TYPE strata_http_refused_total counter\n";
  text += "strata_http_refused_total{code=\"408\"} " + std::to_string(refusals.too_slow) + "\n";
  text += "strata_http_refused_total{code=\"413\"} " + std::to_string(refusals.too_large) + "\n";
  return text;
}

}  // namespace strata::serve::detail
