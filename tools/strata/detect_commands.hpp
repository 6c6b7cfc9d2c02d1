// `strata detect (--hub URL --model NAME[:VERSION] | --cfg FILE --weights FILE [--names FILE])
// [--threshold T] [--nms IOU] [--out DIR] IMAGE...`: runs a YOLO detector on PNG/JPEG files,
// prints each detection and writes each image with its boxes drawn (docs/detection.md).
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

void add_detect_commands(CLI::App& app);

}  // namespace strata::cli
