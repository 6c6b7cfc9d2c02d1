// An inference request's body as `strata serve` gets it (serve::parse_infer_request): the JSON
// header, the binary tensor data extension's bytes after it, checked against a model of three
// inputs (FP32, INT64, BOOL) and two outputs; then the response the server would encode for it
// (serve::encode_infer_response), which echoes the request's id and its choice of outputs, and
// names the model: its name holds a byte that is not UTF-8, as a hub's name may. The outputs are
// the request's own FP32 and INT64 inputs, so every float the fuzzer makes (NaN, infinities,
// subnormals) is written, and the response must read back as JSON holding them: the same float
// from each number, null for what JSON cannot hold, the id as sent. And a header read again from
// the parser's per-thread memory must give what reading it afresh gives. Else the target aborts.
// Input layout: byte 0 odd means the request has an Inference-Header-Content-Length header, whose
// value is bytes 1-4 (little-endian); the body is what follows byte 4. Byte 0 even: no header,
// the body is what follows byte 0.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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
      .outputs = {TensorSignature{"scores", strata::kFloat32, strata::Shape({-1, 4})},
                  TensorSignature{"ids", strata::kInt64, strata::Shape({-1, 2})}},
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

// Whether a JSON "data" element holds `value`: null for NaN and infinities; else a float within
// half a float ulp of it, with its sign. A subnormal (its exponent bits 0) may read as zero:
// libstrata flushes them (FTZ/DAZ), and so does the writer, here as in a server.
bool reads_back_as(const nlohmann::json& element, float value) {
  const auto bits = std::bit_cast<uint32_t>(value);
  if ((bits >> 23 & 0xFF) == 0xFF) return element.is_null();
  if (!element.is_number_float() || std::signbit(element.get<double>()) != bool(bits >> 31)) return false;
  const double parsed = element.get<double>();
  if ((bits >> 23 & 0xFF) == 0) return parsed == 0 || std::fabs(parsed) < 0x1p-126;
  return std::fabs(parsed - static_cast<double>(value)) <= std::ldexp(1.0, std::ilogb(value) - 24);
}

// The JSON part of `response` must parse and hold `outputs` as asked: each JSON "data" element
// the same value (a float read back as that float), non-finite floats as null.
void check_response(const strata::serve::InferResponse& response, const strata::serve::InferRequest& request,
                    const std::vector<strata::Tensor>& outputs) {
  const auto text = std::string_view(response.body).substr(0, response.json_length.value_or(response.body.size()));
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || parsed.value("id", std::string()) != request.id) std::abort();
  const nlohmann::json& entries = parsed.at("outputs");
  if (entries.size() != request.outputs.size()) std::abort();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (request.outputs[i].binary) continue;
    const strata::Tensor& tensor = outputs[request.outputs[i].index];
    const nlohmann::json& data = entries[i].at("data");
    if (data.size() != static_cast<size_t>(tensor.numel())) std::abort();
    for (int64_t k = 0; k < tensor.numel(); ++k) {
      if (tensor.dtype() == strata::kInt64) {
        if (data[k].get<int64_t>() != tensor.data<int64_t>()[k]) std::abort();
        continue;
      }
      if (!reads_back_as(data[k], tensor.data<float>()[k])) std::abort();
    }
  }
}

// What parsing `body` gave: the request, or the refusal's message.
struct Outcome {
  std::optional<std::string> refusal;
  strata::serve::InferRequest request;
};

Outcome parse(std::string_view body, std::optional<size_t> json_length) {
  try {
    return {std::nullopt, strata::serve::parse_infer_request(body, json_length, model())};
  } catch (const strata::Error& e) {
    return {e.what(), {}};
  }
}

bool same_bytes(const strata::Tensor& a, const strata::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// A header read before is reused when the same bytes come again (serve::parse_infer_request keeps
// each thread's last all-binary header): the body read just after a different header (so read
// afresh) and read again (reusing it) must give the same request, or the same refusal, which is
// returned.
Outcome parse_checking_reuse(std::string_view body, std::optional<size_t> json_length) {
  static const std::string other_header =
      R"({"inputs":[{"name":"keep","datatype":"BOOL","shape":[1,1],"parameters":{"binary_data_size":1}},)"
      R"({"name":"ids","datatype":"INT64","shape":[1,2],"parameters":{"binary_data_size":16}},)"
      R"({"name":"image","datatype":"FP32","shape":[1,2,2],"parameters":{"binary_data_size":16}}]})";
  static const std::string other_body = other_header + std::string(33, '\0');
  if (parse(other_body, other_header.size()).request.inputs.size() != 3) std::abort();
  const Outcome fresh = parse(body, json_length), reused = parse(body, json_length);
  if (fresh.refusal != reused.refusal || fresh.request.id != reused.request.id ||
      fresh.request.inputs.size() != reused.request.inputs.size() ||
      fresh.request.outputs.size() != reused.request.outputs.size())
    std::abort();
  for (size_t i = 0; i < fresh.request.inputs.size(); ++i)
    if (!same_bytes(fresh.request.inputs[i], reused.request.inputs[i])) std::abort();
  for (size_t i = 0; i < fresh.request.outputs.size(); ++i)
    if (fresh.request.outputs[i].index != reused.request.outputs[i].index ||
        fresh.request.outputs[i].binary != reused.request.outputs[i].binary)
      std::abort();
  return fresh;
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
  const Outcome parsed = parse_checking_reuse(body, json_length);
  if (parsed.refusal) return 0;
  strata::fuzz::read_or_refuse([&] {
    const strata::serve::InferRequest& request = parsed.request;
    for (const strata::Tensor& input : request.inputs) {
      strata::fuzz::use_every_byte(input);
      if (input.dtype() == strata::kBool) read_as_bools(input);
    }
    const int64_t batch = request.inputs[0].size(0);
    const std::vector<strata::Tensor> outputs = {request.inputs[0].reshape({batch, 4}), request.inputs[1]};
    check_response(strata::serve::encode_infer_response(model(), request, outputs), request, outputs);
  });
  return 0;
}
