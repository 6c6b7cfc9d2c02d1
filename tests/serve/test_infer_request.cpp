// serve::parse_infer_request alone, on a hand-made model signature: binary and JSON inputs decode
// to the values sent, binary BOOL data is checked byte by byte, and JSON numbers against FP32's range;
// and encode_infer_response with a model name that is not UTF-8.
#include <gtest/gtest.h>

#include <cstring>
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

}  // namespace
}  // namespace strata::serve
