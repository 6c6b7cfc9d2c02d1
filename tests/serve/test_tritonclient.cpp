// NVIDIA's tritonclient[http] from PyPI, an independent client of the protocol, against a real
// `strata serve`: health, model metadata, JSON, binary and compressed inference compared with the
// in-process prediction, and the statistics of those requests. Its virtual environment is cached outside the clone
// (~/.cache/strata-test-venv); the test is skipped, saying why, when PyPI cannot be reached.
#include <gtest/gtest.h>

#include "serve/command_output.hpp"
#include "serve/serve_fixture.hpp"
#include "serve/test_venv.hpp"
#include "strata/data/npy.hpp"

namespace strata::testing {
namespace {

using TritonClientTest = ServeTest;

Tensor from_nested(const json& rows) {
  std::vector<float> values;
  for (const auto& row : rows)
    for (const auto& v : row) values.push_back(v.get<float>());
  return from_vector(values, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows.at(0).size())});
}

TEST_F(TritonClientTest, HealthMetadataAndInferenceMatch) {
  const std::string python = test_venv_python("tritonclient.http, numpy", "'tritonclient[http]' numpy");
  if (python.empty()) GTEST_SKIP() << "tritonclient[http] could not be installed from PyPI (offline?)";
  auto& server = start({"--model", "mlp"});
  const Tensor x = randn({3, 16});
  const std::string npy = path("x.npy");
  data::write_npy(npy, x);
  const std::string out = command_output("'" + python + "' '" + STRATA_TESTS_DIR + "/serve/tritonclient_check.py' " +
                                          std::to_string(server.port()) + " '" + npy + "'");
  ASSERT_FALSE(out.empty()) << "tritonclient_check.py failed";
  const json got = json::parse(out);
  EXPECT_EQ(got["live"], true);
  EXPECT_EQ(got["ready"], true);
  EXPECT_EQ(got["model_ready"], true);
  EXPECT_EQ(got["metadata"]["inputs"][0]["shape"], json::array({-1, 16}));
  const Tensor expected = predict("mlp", 1, x);
  EXPECT_TRUE(allclose(from_nested(got["json_output"]), expected, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(from_nested(got["binary_output"]), expected, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(from_nested(got["compressed_output"]), expected, 1e-5, 1e-6));
  const json& stats = got["statistics"]["model_stats"].at(0);
  EXPECT_EQ(stats["name"], "mlp");
  EXPECT_EQ(stats["inference_count"], 9);  // three requests of 3 rows
  EXPECT_EQ(stats["inference_stats"]["success"]["count"], 3);
}

}  // namespace
}  // namespace strata::testing
