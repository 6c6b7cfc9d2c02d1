// The served versions' statistics (ModelStatistics) in Prometheus's text exposition format, for
// `GET /metrics`, under the metric names of NVIDIA Triton's metrics endpoint, so that its
// scrape configurations and dashboards read Strata unchanged.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/serve/served_version.hpp"

namespace strata::serve::detail {

// Prometheus's media type for this format.
inline constexpr const char* kPrometheusTextType = "text/plain; version=0.0.4; charset=utf-8";

std::string prometheus_text(const std::vector<std::shared_ptr<const ServedVersion>>& versions);

}  // namespace strata::serve::detail
