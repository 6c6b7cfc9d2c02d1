// An inference request's body as `strata serve` gets it (serve::parse_infer_request): the JSON
// header, the binary tensor data extension's bytes after it, checked against a model of three
// inputs (FP32, INT64, BOOL) and two outputs; then the response the server would encode for it
// (serve::encode_infer_response), which echoes the request's id and its choice of outputs, and
// names the model: its name holds a byte that is not UTF-8, as a hub's name may.
// Input layout: byte 0 odd means the request has an Inference-Header-Content-Length header, whose
// value is bytes 1-4 (little-endian); the body is what follows byte 4. Byte 0 even: no header,
// the body is what follows byte 0.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "strata/core/factory.hpp"
#include "strata/serve/infer_request.hpp"
#include "strata/serve/infer_response.hpp"

namespace {

const strata::serve::ServedVersion& model() {
  using strata::serve::TensorSignature;
  static const strata::serve::ServedVersion served{
      .name = "fuzzed\xFF",
      .version = 1,
      .inputs = {TensorSignature{"image", strata::kFloat32, strata::Shape({-1, 2, 2})},
                 TensorSignature{"ids", strata::kInt64, strata::Shape({-1, 2})},
                 TensorSignature{"keep", strata::kBool, strata::Shape({-1, 1})}},
      .outputs = {TensorSignature{"scores", strata::kFloat32, strata::Shape({-1, 3})},
                  TensorSignature{"label", strata::kInt64, strata::Shape({-1})}},
      .replicas = {}};
  return served;
}

// What a model's op does with a BOOL input: reads each element as a bool, which UBSan checks
// holds 0 or 1.
void read_as_bools(const strata::Tensor& input) {
  static volatile int64_t trues = 0;
  const bool* values = input.data<bool>();
  for (int64_t i = 0; i < input.numel(); ++i) trues = trues + values[i];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::optional<size_t> json_length;
  size_t skip = 1;
  if (data[0] & 1) {
    if (size < 5) return 0;
    json_length = size_t{data[1]} | size_t{data[2]} << 8 | size_t{data[3]} << 16 | size_t{data[4]} << 24;
    skip = 5;
  }
  const std::string_view body(reinterpret_cast<const char*>(data) + skip, size - skip);
  strata::fuzz::read_or_refuse([&] {
    const strata::serve::InferRequest request = strata::serve::parse_infer_request(body, json_length, model());
    for (const strata::Tensor& input : request.inputs) {
      strata::fuzz::use_every_byte(input);
      if (input.dtype() == strata::kBool) read_as_bools(input);
    }
    const int64_t batch = request.inputs[0].size(0);
    const std::vector<strata::Tensor> outputs = {strata::zeros({batch, 3}),
                                                 strata::zeros({batch}, strata::kInt64)};
    strata::serve::encode_infer_response(model(), request, outputs);
  });
  return 0;
}
