// Every class of bad request gets a 4xx JSON error naming what was wrong, and the server keeps
// serving: after each refusal a good request still gets the right prediction. The bearer token
// guards every route.
#include <gtest/gtest.h>
#include <zlib.h>

#include "serve/serve_fixture.hpp"

namespace strata::testing {
namespace {

using BadRequestTest = ServeTest;

struct BadRequest {
  const char* what;
  std::string path;  // POSTed unless `get`
  std::string body;
  httplib::Headers headers;
  int status;
  std::string message;  // a part of the "error" text
  bool get = false;
  std::string content_type = "application/json";
};

// `text` compressed in zlib's format, which httplib inflates for Content-Encoding: gzip or deflate.
std::string compressed(const std::string& text) {
  uLongf size = compressBound(text.size());
  std::string out(size, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(text.data()),
                      text.size(), Z_BEST_COMPRESSION),
            Z_OK);
  out.resize(size);
  return out;
}

std::string with_input(const json& input) { return json{{"inputs", {input}}}.dump(); }

json features_input(json shape, json data, const char* datatype = "FP32") {
  return {{"name", "features"}, {"datatype", datatype}, {"shape", std::move(shape)}, {"data", std::move(data)}};
}

std::vector<BadRequest> bad_requests(size_t max_body_bytes) {
  const json sixteen = std::vector<float>(16, 0.5f);
  json with_string = sixteen;
  with_string[3] = "1";
  std::string nested(300, '[');
  const std::string binary_header =
      with_input({{"name", "features"}, {"datatype", "FP32"}, {"shape", {1, 16}}, {"parameters", {{"binary_data_size", 64}}}});
  return {
      {"unknown model", "/v2/models/nope/infer", "{}", {}, 404, "unknown model 'nope'"},
      {"unknown version", "/v2/models/mlp/versions/9/infer", "{}", {}, 404, "version 9 is not served"},
      {"version not a number", "/v2/models/mlp/versions/x1", "", {}, 400, "got 'x1'", true},
      {"metadata of an unknown model", "/v2/models/nope", "", {}, 404, "unknown model 'nope'", true},
      {"unknown route", "/v3/everything", "", {}, 404, "no route GET /v3/everything", true},
      {"malformed JSON", "/v2/models/mlp/infer", "{\"inputs\": [", {}, 400, "not valid JSON"},
      {"number out of range", "/v2/models/mlp/infer", "{\"inputs\": [1e999]}", {}, 400, "not valid JSON"},
      {"JSON nested too deep", "/v2/models/mlp/infer", nested, {}, 400, "max_json_depth"},
      {"no inputs", "/v2/models/mlp/infer", "{\"id\": \"x\"}", {}, 400, "needs an \"inputs\" array"},
      {"unknown input", "/v2/models/mlp/infer", with_input({{"name", "pixels"}}), {}, 400, "no input named 'pixels'"},
      {"an output asked for twice", "/v2/models/mlp/infer",
       json{{"inputs", {features_input({1, 16}, sixteen)}}, {"outputs", {{{"name", "output_0"}}, {{"name", "output_0"}}}}}.dump(),
       {}, 400, "output 'output_0' is asked for twice"},
      {"wrong datatype", "/v2/models/mlp/infer", with_input(features_input({1, 16}, sixteen, "INT64")), {}, 400,
       "expected datatype FP32, got INT64"},
      {"unsupported datatype", "/v2/models/mlp/infer", with_input(features_input({1, 16}, sixteen, "FP16")), {}, 400,
       "got FP16"},
      {"wrong shape", "/v2/models/mlp/infer", with_input(features_input({1, 15}, sixteen)), {}, 400,
       "expected shape [-1, 16]"},
      {"empty batch", "/v2/models/mlp/infer", with_input(features_input({0, 16}, json::array())), {}, 400,
       "a batch of 1 or more"},
      {"batch overflowing int64", "/v2/models/mlp/infer", with_input(features_input({INT64_MAX, 16}, sixteen)), {}, 400,
       "input 'features'"},
      {"data count not the shape's", "/v2/models/mlp/infer", with_input(features_input({2, 16}, sixteen)), {}, 400,
       "needs 32 values, \"data\" has 16"},
      // 6.4 GB by its shape, 16 values in fact: refused before anything is allocated.
      {"a huge shape with little data", "/v2/models/mlp/infer", with_input(features_input({100000000, 16}, sixteen)), {},
       400, "needs 1600000000 values, \"data\" has 16"},
      {"a string among numbers", "/v2/models/mlp/infer", with_input(features_input({1, 16}, with_string)), {}, 400,
       "data[3] should be a number, got \"1\""},
      {"truncated binary data", "/v2/models/mlp/infer", binary_header + std::string(10, '\0'),
       {{"Inference-Header-Content-Length", std::to_string(binary_header.size())}}, 400, "binary data truncated"},
      {"header length past the body", "/v2/models/mlp/infer", "{}", {{"Inference-Header-Content-Length", "99"}}, 400,
       "the body has only 2 bytes"},
      {"header length not a number", "/v2/models/mlp/infer", "{}", {{"Inference-Header-Content-Length", "-1"}}, 400,
       "should be a byte count, got '-1'"},
      {"oversized body", "/v2/models/mlp/infer", std::string(max_body_bytes + 1, ' '), {}, 413, "larger than the server's limit"},
      // A few dozen bytes that inflate past the limit (1 MB of gzip can hold 1 GB).
      {"oversized once decompressed", "/v2/models/mlp/infer", compressed("{" + std::string(max_body_bytes, ' ') + "}"),
       {{"Content-Encoding", "deflate"}}, 413, "decompressed, is larger than the server's limit of 4096 bytes"},
      // The same to a route that takes no body: httplib would inflate it unbounded before finding none.
      {"oversized once decompressed, no route", "/v2/nothing", compressed("{" + std::string(max_body_bytes, ' ') + "}"),
       {{"Content-Encoding", "deflate"}}, 413, "decompressed, is larger than the server's limit of 4096 bytes"},
      {"a body to a route without one", "/v2/health/live", "{}", {}, 404, "no route POST /v2/health/live"},
      {"multipart, oversized once decompressed", "/v2/models/mlp/infer",
       compressed("--b\r\nContent-Disposition: form-data; name=\"inputs\"\r\n\r\n" + std::string(2 * max_body_bytes, 'x') +
                  "\r\n--b--\r\n"),
       {{"Content-Encoding", "deflate"}}, 413, "decompressed, is larger than the server's limit of 4096 bytes", false,
       "multipart/form-data; boundary=b"},
      // Larger than httplib's first read of a request: what the server leaves unread is taken for
      // the connection's next request.
      {"multipart body", "/v2/models/mlp/infer",
       "--b\r\nContent-Disposition: form-data; name=\"inputs\"\r\n\r\n" + std::string(max_body_bytes - 100, 'x') +
           "\r\n--b--\r\n",
       {}, 415, "not multipart/form-data", false, "multipart/form-data; boundary=b"},
  };
}

// On one keep-alive connection: a refusal must leave it in step for the next request.
TEST_F(BadRequestTest, EachGetsA4xxJsonErrorAndTheServerKeepsServing) {
  const size_t max_body_bytes = 4096;
  auto client = start({"--model", "mlp", "--max-body-bytes", std::to_string(max_body_bytes)}).client();
  client.set_keep_alive(true);
  const Tensor x = randn({2, 16});
  const Tensor expected = predict("mlp", 1, x);
  for (const BadRequest& bad : bad_requests(max_body_bytes)) {
    SCOPED_TRACE(bad.what);
    auto res = bad.get ? client.Get(bad.path.c_str(), bad.headers)
                       : client.Post(bad.path.c_str(), bad.headers, bad.body, bad.content_type.c_str());
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, bad.status) << res->body;
    const json error = body_json(res);
    ASSERT_TRUE(error.contains("error")) << res->body;
    EXPECT_NE(error["error"].get<std::string>().find(bad.message), std::string::npos) << error["error"];
    auto good = post_infer(client, "mlp", json_request("features", x));
    EXPECT_TRUE(allclose(infer_output(good), expected, 1e-5, 1e-6));
  }
}

TEST_F(BadRequestTest, EveryRouteNeedsTheBearerToken) {
  auto client = start({"--model", "mlp", "--token", "s3cret"}).client();
  const Tensor x = randn({1, 16});
  for (const httplib::Headers& wrong : {httplib::Headers{}, httplib::Headers{{"Authorization", "Bearer s3cre"}},
                                        httplib::Headers{{"Authorization", "s3cret"}}}) {
    for (const char* path : {"/v2/health/live", "/v2/health/ready", "/v2", "/v2/models/mlp", "/v2/models/mlp/ready",
                             "/v2/models/stats", "/v2/models/mlp/stats", "/metrics"}) {
      auto res = client.Get(path, wrong);
      EXPECT_EQ(res->status, 401) << path;
      EXPECT_TRUE(body_json(res).contains("error"));
    }
    EXPECT_EQ(post_infer(client, "mlp", json_request("features", x), wrong)->status, 401);
  }
  const httplib::Headers right = {{"Authorization", "Bearer s3cret"}};
  EXPECT_EQ(client.Get("/v2/health/live", right)->status, 200);
  EXPECT_EQ(client.Get("/v2/models/mlp", right)->status, 200);
  EXPECT_EQ(client.Get("/metrics", right)->status, 200);
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x), right)),
                       predict("mlp", 1, x), 1e-5, 1e-6));
}

}  // namespace
}  // namespace strata::testing
