// darknet .cfg text (vision::parse_darknet_cfg): sections and keys, every bound, and the network
// it builds. The parameter limit is lowered so that a cfg asking for a large network is refused
// by the reader's own check rather than by the fuzzer's memory limit.
#include <string_view>

#include "fuzz_input.hpp"
#include "strata/vision/darknet.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  strata::fuzz::read_or_refuse([&] {
    const auto net = strata::vision::parse_darknet_cfg(text, {.max_parameters = int64_t{1} << 20});
    for (const strata::Tensor& w : net.model->all_weights()) strata::fuzz::use_every_byte(w);
  });
  return 0;
}
