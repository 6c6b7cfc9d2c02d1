// A hub run as TensorBoard event files (`strata hub export-tensorboard RUN`): every metric
// series the run logged, one subdirectory per split (OUT/train, OUT/validation, OUT/test) with
// the metric's name as the tag and each point's step and time; the run's config as text
// "config" and each event as text "events/<kind>" (in OUT/train).
#pragma once
#include <cstdint>
#include <string>

#include "strata/hub/hub.hpp"

namespace strata::lifecycle {

struct TensorBoardExport {
  int64_t series = 0;  // (metric, split) pairs
  int64_t points = 0;
};

// Throws strata::Error when the run does not exist, `out_dir` cannot be written, a split folder
// of `out_dir` already holds event files (TensorBoard would show them beside these), or a row of
// the run is refused by the hub; then no event file of this export is left.
TensorBoardExport export_tensorboard(hub::Hub& hub, int64_t run_id, const std::string& out_dir);

}  // namespace strata::lifecycle
