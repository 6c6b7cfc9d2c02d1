// Plain curl, as a user would type it, against a real `strata serve`: the health route and a JSON
// inference whose answer matches the in-process prediction. Skipped when curl is not installed.
// `curl -d` labels its body application/x-www-form-urlencoded, whatever it holds; httplib refuses
// such a body over 8 KB (its form limit) before any handler runs, which refused a JSON image of
// 28x28 values, so the request here is larger than that.
#include <gtest/gtest.h>

#include <fstream>

#include "serve/command_output.hpp"
#include "serve/serve_fixture.hpp"

namespace strata::testing {
namespace {

using CurlTest = ServeTest;

// curl's output: the body, then the status code on a line of its own.
std::string curl(const std::string& args) { return command_output("curl -s -w '\\n%{http_code}' " + args); }

TEST_F(CurlTest, HealthAndJsonInference) {
  if (std::system("curl --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "curl is not installed";
  const std::string url = "http://127.0.0.1:" + std::to_string(start({"--model", "mlp"}).port());
  EXPECT_EQ(curl(url + "/v2/health/live"), "{\"live\":true}\n200");
  const Tensor x = randn({64, 16});
  const std::string request = json_request("features", x);
  ASSERT_GT(request.size(), 8192u);
  std::ofstream(path("request.json")) << request;
  const std::string out = curl("-d @'" + path("request.json") + "' " + url + "/v2/models/mlp/infer");
  const size_t status_at = out.rfind('\n');
  ASSERT_NE(status_at, std::string::npos) << out;
  EXPECT_EQ(out.substr(status_at + 1), "200");
  const json response = json::parse(out.substr(0, status_at));
  EXPECT_TRUE(allclose(output_tensor(response["outputs"][0]), predict("mlp", 1, x), 1e-5, 1e-6));
}

}  // namespace
}  // namespace strata::testing
