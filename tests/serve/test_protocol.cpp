// `strata serve` speaks the Open Inference Protocol v2: health, server and model metadata, and
// inference with JSON tensors and with the binary tensor data extension, each answer compared
// with the same hub version's prediction computed in this process.
#include <gtest/gtest.h>

#include "strata/points/pointnet2.hpp"
#include "serve/serve_fixture.hpp"

namespace strata::testing {
namespace {

using ProtocolTest = ServeTest;

TEST_F(ProtocolTest, HealthAndServerMetadata) {
  auto client = start().client();
  auto live = client.Get("/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  EXPECT_EQ(body_json(live)["live"], true);
  auto ready = client.Get("/v2/health/ready");
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(body_json(ready)["ready"], true);
  auto server = body_json(client.Get("/v2"));
  EXPECT_EQ(server["name"], "strata");
  EXPECT_FALSE(server["version"].get<std::string>().empty());
  EXPECT_NE(std::find(server["extensions"].begin(), server["extensions"].end(), "binary_tensor_data"),
            server["extensions"].end());
}

TEST_F(ProtocolTest, ModelMetadataHasSignaturesWithABatchAxis) {
  auto client = start().client();
  for (const std::string path : {"/v2/models/mlp", "/v2/models/mlp/versions/1"}) {
    auto res = client.Get(path.c_str());
    ASSERT_EQ(res->status, 200) << path << ": " << res->body;
    const json meta = body_json(res);
    EXPECT_EQ(meta["name"], "mlp");
    EXPECT_EQ(meta["versions"], json::array({"1"}));
    EXPECT_EQ(meta["inputs"], json::parse(R"([{"name": "features", "datatype": "FP32", "shape": [-1, 16]}])"));
    EXPECT_EQ(meta["outputs"], json::parse(R"([{"name": "output_0", "datatype": "FP32", "shape": [-1, 4]}])"));
  }
  const json cnn = body_json(client.Get("/v2/models/cnn"));
  EXPECT_EQ(cnn["inputs"][0]["shape"], json::array({-1, 8, 8, 1}));
  EXPECT_EQ(cnn["outputs"][0]["shape"], json::array({-1, 3}));
  auto ready = client.Get("/v2/models/cnn/versions/1/ready");
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(body_json(ready)["ready"], true);
}

TEST_F(ProtocolTest, JsonInferenceMatchesInProcessPredictions) {
  auto client = start().client();
  const Tensor features = randn({3, 16}), images = randn({2, 8, 8, 1});
  auto mlp = post_infer(client, "mlp", json{{"id", "req-1"}, {"inputs", {float_input("features", features)}}}.dump());
  EXPECT_EQ(body_json(mlp)["id"], "req-1");
  EXPECT_EQ(body_json(mlp)["model_version"], "1");
  EXPECT_TRUE(allclose(infer_output(mlp), predict("mlp", 1, features), 1e-5, 1e-6));
  auto cnn = post_infer(client, "cnn/versions/1", json_request("image", images));
  EXPECT_TRUE(allclose(infer_output(cnn), predict("cnn", 1, images), 1e-5, 1e-6));
}

// A point-cloud classifier (PointNet++ set abstractions, issue 44) saved whole in the hub is
// served like any static model.
TEST_F(ProtocolTest, PointCloudModelsAreServed) {
  auto x = nn::Input({-1, 64, 3});
  auto h = points::SetAbstraction(16, 0.5, 8, {8})(x);
  h = points::SetAbstraction({.mlp = {{8}}, .group_all = true})(h);
  nn::Model net(x, nn::Dense(3)(nn::Flatten()(h)), "pointnet2_tiny");
  {
    auto hub = hub::Hub::open(hub_path_);
    lifecycle::save_model(hub, "clouds", net);
  }
  auto client = start({"--model", "clouds"}).client();
  const Tensor clouds = uniform({2, 64, 3}, -1, 1);
  auto res = post_infer(client, "clouds", json_request("input", clouds));
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_TRUE(allclose(infer_output(res), predict("clouds", 1, clouds), 1e-5, 1e-6));
}

// JSON labelled as a form, as `curl -d` and Python's urllib send it, is read as JSON, beyond the
// 8 KB httplib allows a form body.
TEST_F(ProtocolTest, JsonLabelledAsAFormIsReadAsJson) {
  auto client = start().client();
  const Tensor features = randn({64, 16});
  const std::string body = json_request("features", features);
  ASSERT_GT(body.size(), 8192u);
  auto res = client.Post("/v2/models/mlp/infer", body, "application/x-www-form-urlencoded");
  EXPECT_TRUE(allclose(infer_output(res), predict("mlp", 1, features), 1e-5, 1e-6));
}

TEST_F(ProtocolTest, BinaryTensorDataInAndOut) {
  auto client = start().client();
  const Tensor features = randn({5, 16});
  const json header = {{"inputs", {{{"name", "features"}, {"datatype", "FP32"}, {"shape", {5, 16}},
                                    {"parameters", {{"binary_data_size", features.nbytes()}}}}}},
                       {"outputs", {{{"name", "output_0"}, {"parameters", {{"binary_data", true}}}}}}};
  std::string body = header.dump();
  const size_t header_length = body.size();
  body.append(static_cast<const char*>(features.raw_data()), features.nbytes());
  auto res = post_infer(client, "mlp", body, {{"Inference-Header-Content-Length", std::to_string(header_length)}});
  ASSERT_EQ(res->status, 200) << res->body;
  const size_t json_length = std::stoul(res->get_header_value("Inference-Header-Content-Length"));
  const json response = json::parse(res->body.substr(0, json_length));
  const json& output = response["outputs"][0];
  EXPECT_EQ(output["shape"], json::array({5, 4}));
  const size_t bytes = output["parameters"]["binary_data_size"];
  ASSERT_EQ(bytes, 5 * 4 * sizeof(float));
  ASSERT_EQ(res->body.size(), json_length + bytes);
  Tensor got = Tensor::empty({5, 4});
  std::memcpy(got.raw_data(), res->body.data() + json_length, bytes);
  EXPECT_TRUE(allclose(got, predict("mlp", 1, features), 1e-5, 1e-6));
}

}  // namespace
}  // namespace strata::testing
