// An ONNX file (onnx::load_onnx): a protobuf ModelProto whose graph becomes a static model, its
// initializers the layers' weights.
#include "fuzz_input.hpp"
#include "strata/onnx/onnx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".onnx");
  strata::fuzz::read_or_refuse([&] {
    for (const auto& [name, weight] : strata::onnx::load_onnx(path)->named_weights())
      strata::fuzz::use_every_byte(weight);
  });
  return 0;
}
