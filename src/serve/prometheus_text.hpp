// The served versions' statistics (ModelStatistics) in Prometheus's text exposition format, for
// `GET /metrics`, under the metric names of NVIDIA Triton's metrics endpoint, so that its
// scrape configurations and dashboards read Strata unchanged.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/serve/served_version.hpp"

namespace strata::serve::detail {

// Prometheus's media type for this format.
inline constexpr const char* kPrometheusTextType = "text/plain; version=0.0.4; charset=utf-8";

// Requests the HTTP layer refused before any model saw them (HttpServer's counts).
struct HttpRefusals {
  uint64_t too_large = 0;  // 413: the body over --max-body-bytes
  uint64_t too_slow = 0;   // 408: not received within --io-timeout-s
};

// The models' metrics, then `strata_http_refused_total{code="408"|"413"}` (not per model).
std::string prometheus_text(const std::vector<std::shared_ptr<const ServedVersion>>& versions,
                            const HttpRefusals& refusals);

}  // namespace strata::serve::detail
