// Building Open Inference Protocol v2 requests from tensors and reading tensors back from the
// responses, for the serve tests (the server's own codec is what is under test, so this is a
// separate, plain rendering of the protocol's JSON shapes).
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::testing {

using nlohmann::json;

inline json float_input(const std::string& name, const Tensor& x) {
  const float* v = x.data<float>();
  return {{"name", name}, {"datatype", "FP32"}, {"shape", x.shape().vec()}, {"data", std::vector<float>(v, v + x.numel())}};
}

inline std::string json_request(const std::string& name, const Tensor& x) {
  return json{{"inputs", {float_input(name, x)}}}.dump();
}

// A float32 tensor from a response output {"shape", "data"}.
inline Tensor output_tensor(const json& output) {
  EXPECT_EQ(output.at("datatype"), "FP32");
  return from_vector(output.at("data").get<std::vector<float>>(), Shape(output.at("shape").get<std::vector<int64_t>>()));
}

// POSTs `body` to /v2/models/<route>/infer; the caller checks the status.
inline httplib::Result post_infer(httplib::Client& client, const std::string& route, const std::string& body,
                                  httplib::Headers headers = {}) {
  return client.Post(("/v2/models/" + route + "/infer").c_str(), headers, body, "application/json");
}

// The JSON body of a response, with a message when it is not JSON.
inline json body_json(const httplib::Result& res) {
  if (!res) ADD_FAILURE() << "no response: " << httplib::to_string(res.error());
  json body = res ? json::parse(res->body, nullptr, false) : json();
  if (body.is_discarded()) ADD_FAILURE() << "not JSON: " << res->body;
  return body;
}

// The first output of a JSON infer response that must have succeeded.
inline Tensor infer_output(const httplib::Result& res) {
  EXPECT_TRUE(res && res->status == 200) << (res ? res->body : httplib::to_string(res.error()));
  if (!res || res->status != 200) return zeros({0});  // compares unequal with any prediction
  return output_tensor(body_json(res).at("outputs").at(0));
}

}  // namespace strata::testing
