// Pascal VOC annotation XML (vision::parse_voc_annotation): the bounded XML reader, entities,
// nesting and every coordinate.
#include <string>

#include "fuzz_input.hpp"
#include "strata/vision/voc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  strata::fuzz::read_or_refuse([&] { strata::vision::parse_voc_annotation(xml, "fuzz.xml"); });
  return 0;
}
