// A detector's description from the hub (vision::parse_detector_json): what `strata detect`
// reads back beside a model's weights; its bounds on heads, anchors, classes and names.
#include <string>

#include "fuzz_input.hpp"
#include "strata/vision/detector_description.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  strata::fuzz::read_or_refuse([&] {
    const auto description = strata::vision::parse_detector_json(text);
    // What was accepted writes back and reads again as the same description.
    const std::string again = strata::vision::detector_json(description);
    if (strata::vision::detector_json(strata::vision::parse_detector_json(again)) != again) __builtin_trap();
  });
  return 0;
}
