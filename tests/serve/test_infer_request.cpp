// serve::parse_infer_request alone, on a hand-made model signature: binary and JSON inputs decode
// to the values sent, binary BOOL data is checked byte by byte, and JSON numbers against FP32's range;
// and encode_infer_response: a model name that is not UTF-8, every dtype's values read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "strata/core/factory.hpp"
#include "strata/serve/infer_request.hpp"
#include "strata/serve/infer_response.hpp"
#include "strata/serve/request_error.hpp"

namespace strata::serve {
namespace {

ServedVersion image_and_mask_model() {
  return {.name = "m",
          .version = 1,
          .inputs = {TensorSignature{"image", kFloat32, Shape({-1, 2})}, TensorSignature{"mask", kBool, Shape({-1, 3})}},
          .outputs = {TensorSignature{"y", kFloat32, Shape({-1})}},
          .replicas = {}};
}

// A request whose image is JSON data and whose mask is the binary bytes given.
std::string request_with_binary_mask(const std::string& mask_bytes, size_t& header_length) {
  const std::string header =
      R"({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 2], "data": [1.5, -2]},)"
      R"({"name": "mask", "datatype": "BOOL", "shape": [1, 3], "parameters": {"binary_data_size": 3}}]})";
  header_length = header.size();
  return header + mask_bytes;
}

TEST(InferRequest, BinaryAndJsonInputsDecodeToTheValuesSent) {
  const ServedVersion model = image_and_mask_model();
  size_t header_length = 0;
  const std::string body = request_with_binary_mask(std::string("\1\0\1", 3), header_length);
  const InferRequest request = parse_infer_request(body, header_length, model);
  ASSERT_EQ(request.inputs.size(), 2u);
  EXPECT_EQ(request.inputs[0].data<float>()[0], 1.5f);
  EXPECT_EQ(request.inputs[0].data<float>()[1], -2.0f);
  const bool* mask = request.inputs[1].data<bool>();
  EXPECT_TRUE(mask[0]);
  EXPECT_FALSE(mask[1]);
  EXPECT_TRUE(mask[2]);
}

TEST(InferRequest, BinaryBoolBytesOtherThanZeroOrOneAreRefusedNamingTheElement) {
  const ServedVersion model = image_and_mask_model();
  size_t header_length = 0;
  const std::string body = request_with_binary_mask(std::string("\1\0\2", 3), header_length);
  try {
    parse_infer_request(body, header_length, model);
    FAIL() << "a BOOL byte of 2 was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_NE(std::string(e.what()).find("input 'mask': BOOL binary data should hold bytes 0 or 1, element 2 is 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(InferRequest, Fp32DataOutsideFloatsRangeIsRefusedNotMadeInfinite) {
  const ServedVersion model = image_and_mask_model();
  const std::string body =
      R"({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 2], "data": [1, -1e300]},)"
      R"({"name": "mask", "datatype": "BOOL", "shape": [1, 3], "data": [true, false, true]}]})";
  try {
    parse_infer_request(body, std::nullopt, model);
    FAIL() << "FP32 data of -1e300 was accepted";
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("data[1] should be a number in the datatype's range, got -1e+300"),
              std::string::npos)
        << e.what();
  }
}

// The JSON header of a request whose image and mask are both binary data (8 + 3 bytes).
const std::string kAllBinaryHeader =
    R"({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 2], "parameters": {"binary_data_size": 8}},)"
    R"({"name": "mask", "datatype": "BOOL", "shape": [1, 3], "parameters": {"binary_data_size": 3}}]})";

std::string all_binary_body(float a, float b, const std::string& mask_bytes) {
  std::string body = kAllBinaryHeader;
  body.append(reinterpret_cast<const char*>(&a), sizeof a);
  body.append(reinterpret_cast<const char*>(&b), sizeof b);
  return body + mask_bytes;
}

std::string refusal(const std::string& body, const ServedVersion& model) {
  try {
    parse_infer_request(body, kAllBinaryHeader.size(), model);
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), 400);
    return e.what();
  }
  return "(accepted)";
}

// A header sent again (as clients sending one shape do) is not read again, but each request still
// gets its own bytes, and they are still checked.
TEST(InferRequest, ARepeatedBinaryHeaderTakesAndChecksEachRequestsOwnBytes) {
  const ServedVersion model = image_and_mask_model();
  for (const float first : {1.5f, -3.0f, 7.25f}) {
    const InferRequest request =
        parse_infer_request(all_binary_body(first, -first, std::string("\0\1\1", 3)), kAllBinaryHeader.size(), model);
    EXPECT_EQ(request.inputs[0].data<float>()[0], first);
    EXPECT_EQ(request.inputs[0].data<float>()[1], -first);
    EXPECT_FALSE(request.inputs[1].data<bool>()[0]);
    EXPECT_TRUE(request.inputs[1].data<bool>()[2]);
  }
  const std::string good = all_binary_body(1, 2, std::string("\1\1\0", 3));
  EXPECT_NE(refusal(good.substr(0, good.size() - 1), model).find("input 'mask': binary data truncated: needs 3 bytes, 2 remain"),
            std::string::npos);
  EXPECT_NE(refusal(good + "x", model).find("1 bytes after the inputs' binary data belong to no input"), std::string::npos);
  EXPECT_NE(refusal(all_binary_body(1, 2, std::string("\1\3\0", 3)), model).find("element 1 is 3"), std::string::npos);
  EXPECT_EQ(parse_infer_request(good, kAllBinaryHeader.size(), model).inputs[0].data<float>()[1], 2.0f);
}

// The same header bytes for a model whose inputs differ (another version, another model) are read
// against that model, not taken from the last one.
TEST(InferRequest, ARepeatedHeaderIsReadAgainForAModelOfOtherInputs) {
  const ServedVersion model = image_and_mask_model();
  const std::string body = all_binary_body(1, 2, std::string("\1\1\0", 3));
  ASSERT_EQ(parse_infer_request(body, kAllBinaryHeader.size(), model).inputs.size(), 2u);
  ServedVersion wider = image_and_mask_model();
  wider.inputs[0].shape = Shape({-1, 3});
  EXPECT_NE(refusal(body, wider).find("input 'image': expected shape [-1, 3]"), std::string::npos) << refusal(body, wider);
  ServedVersion integers = image_and_mask_model();
  integers.inputs[0].dtype = kInt32;
  EXPECT_NE(refusal(body, integers).find("input 'image': expected datatype INT32, got FP32"), std::string::npos);
  ServedVersion renamed = image_and_mask_model();
  renamed.outputs[0].name = "z";
  EXPECT_EQ(parse_infer_request(body, kAllBinaryHeader.size(), renamed).outputs.size(), 1u);
  ServedVersion three_inputs = image_and_mask_model();
  three_inputs.inputs.push_back(TensorSignature{"extra", kFloat32, Shape({-1})});
  EXPECT_NE(refusal(body, three_inputs).find("the request lacks input 'extra'"), std::string::npos);
}

// A hub model's name may hold bytes that are not UTF-8; the response names the model, and JSON
// cannot hold them: they become U+FFFD (before, every answer of that model was a 500 from the
// JSON writer, after the model had run).
TEST(InferResponse, AModelNameThatIsNotUtf8IsAnsweredWithTheReplacementCharacter) {
  ServedVersion model = image_and_mask_model();
  model.name = "bad\xFFname";
  const InferRequest request{.id = "", .inputs = {}, .outputs = {{0, false}}};
  const InferResponse response = encode_infer_response(model, request, {from_vector(std::vector<float>{1.5f}, {1})});
  const nlohmann::json body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["model_name"], "bad\xEF\xBF\xBDname");
  EXPECT_EQ(body["outputs"][0]["data"], nlohmann::json::array({1.5}));
}

// Whether a JSON number, read as a double, is `value` once taken to float: within half a float
// ulp of it, with its sign.
bool reads_back_as(double parsed, float value) {
  const double half_ulp = std::ldexp(1.0, (value == 0 ? -126 : std::max(std::ilogb(value), -126)) - 24);
  return std::fabs(parsed - static_cast<double>(value)) <= half_ulp && std::signbit(parsed) == std::signbit(value);
}

// The response is written as text (no JSON document): each number reads back as the same value
// of its type (a float parsed as a double, as JSON readers do, then taken to float is the same
// float, -0 included), what JSON cannot hold is null, strings are escaped, and the binary outputs
// start where the header length says.
TEST(InferResponse, EveryValueReadsBackAsSentAndBinaryFollowsTheHeader) {
  const ServedVersion model{.name = "m\"odel",
                            .version = 12,
                            .inputs = {},
                            .outputs = {TensorSignature{"f", kFloat32, Shape({-1})}, TensorSignature{"i", kInt64, Shape({-1})},
                                        TensorSignature{"b", kBool, Shape({-1})}, TensorSignature{"u", kUInt8, Shape({-1})},
                                        TensorSignature{"d", kFloat64, Shape({-1, 2})}},
                            .replicas = {}};
  // No subnormal: libstrata flushes them to zero (FTZ/DAZ, docs/architecture.md), so they are written 0.0.
  const std::vector<float> floats{0.1f, -0.0f, 1.17549435e-38f, 3.40282347e38f, -2.5f, 16777217.0f, 0.3333333f,
                                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity()};
  const std::vector<int64_t> ints{INT64_MIN, -1, 0, INT64_MAX};
  const std::vector<Tensor> outputs{from_vector(floats, {static_cast<int64_t>(floats.size())}), from_vector(ints, {4}),
                                    from_vector(std::vector<bool>{true, false}, {2}),
                                    from_vector(std::vector<uint8_t>{0, 255}, {2}),
                                    from_vector(std::vector<double>{0.1, 1e308, -5e-324, 2.0 / 3}, {2, 2})};
  const InferRequest request{.id = "a\"b\\c\n\x01",
                             .inputs = {},
                             .outputs = {{0, false}, {1, false}, {2, false}, {3, true}, {4, false}}};
  const InferResponse response = encode_infer_response(model, request, outputs);
  ASSERT_TRUE(response.json_length);
  const auto body = nlohmann::json::parse(response.body.substr(0, *response.json_length));
  EXPECT_EQ(body["model_name"], "m\"odel");
  EXPECT_EQ(body["model_version"], "12");
  EXPECT_EQ(body["id"], request.id);
  const auto& f = body["outputs"][0];
  EXPECT_EQ(f["name"], "f");
  EXPECT_EQ(f["datatype"], "FP32");
  EXPECT_EQ(f["shape"], nlohmann::json::array({floats.size()}));
  ASSERT_EQ(f["data"].size(), floats.size());
  for (size_t k = 0; k < floats.size(); ++k) {
    SCOPED_TRACE("float " + std::to_string(k));
    if (!std::isfinite(floats[k])) {
      EXPECT_TRUE(f["data"][k].is_null());
      continue;
    }
    EXPECT_TRUE(f["data"][k].is_number_float()) << f["data"][k].dump();
    EXPECT_TRUE(reads_back_as(f["data"][k].get<double>(), floats[k])) << f["data"][k].dump();
  }
  EXPECT_EQ(body["outputs"][1]["data"], nlohmann::json(ints));
  EXPECT_EQ(body["outputs"][2]["data"], nlohmann::json::array({true, false}));
  EXPECT_EQ(body["outputs"][3]["parameters"]["binary_data_size"], 2);
  EXPECT_FALSE(body["outputs"][3].contains("data"));
  EXPECT_EQ(body["outputs"][4]["shape"], nlohmann::json::array({2, 2}));
  EXPECT_EQ(body["outputs"][4]["data"], nlohmann::json::array({0.1, 1e308, -5e-324, 2.0 / 3}));
  EXPECT_EQ(response.body.substr(*response.json_length), std::string("\x00\xff", 2));
}

}  // namespace
}  // namespace strata::serve
