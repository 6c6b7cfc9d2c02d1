// GET /metrics: the served versions' statistics in Prometheus's text format under Triton's metric
// names, read back by the Prometheus project's own parser (prometheus_client from PyPI, cached in
// the tests' venv; skipped offline) and compared with the statistics route, with a model name
// that needs every escape the format has.
#include <gtest/gtest.h>

#include "serve/command_output.hpp"
#include "serve/serve_fixture.hpp"
#include "serve/test_venv.hpp"

namespace strata::testing {
namespace {

class MetricsTest : public ServeTest {
 protected:
  // A quote, a backslash, a line feed and a byte that is not UTF-8.
  const std::string weird_ = "we\"ird\\name\nx\xFF";

  void SetUp() override {
    ServeTest::SetUp();
    auto hub = hub::Hub::open(hub_path_);
    save_random_version(hub, weird_, *mlp_);
  }

  // Sends 3 requests (6 rows) and 1 bad one to the MLP, none to the others.
  ServeProcess& start_and_send() {
    auto& server = start({"--model", "mlp", "--model", "cnn", "--model", weird_});
    auto client = server.client();
    for (int64_t rows : {1, 2, 3}) EXPECT_EQ(post_infer(client, "mlp", json_request("features", randn({rows, 16})))->status, 200);
    EXPECT_EQ(post_infer(client, "mlp", "[]")->status, 400);
    return server;
  }
};

TEST_F(MetricsTest, CountersMatchTheStatisticsAndNamesAreEscaped) {
  auto& server = start_and_send();
  auto client = server.client();
  auto res = client.Get("/metrics");
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = res->body;
  const json stats = body_json(client.Get("/v2/models/mlp/stats"))["model_stats"][0];
  const auto line = [](const std::string& metric, const std::string& model, uint64_t value) {
    return "\n" + metric + "{model=\"" + model + "\",version=\"1\"} " + std::to_string(value) + "\n";
  };
  EXPECT_NE(text.find("# TYPE nv_inference_request_success counter\n"), std::string::npos);
  EXPECT_NE(text.find(line("nv_inference_request_success", "mlp", 3)), std::string::npos) << text;
  EXPECT_NE(text.find(line("nv_inference_request_failure", "mlp", 1)), std::string::npos) << text;
  EXPECT_NE(text.find(line("nv_inference_count", "mlp", 6)), std::string::npos) << text;
  EXPECT_NE(text.find(line("nv_inference_exec_count", "mlp", stats["execution_count"])), std::string::npos) << text;
  EXPECT_NE(text.find(line("nv_inference_compute_infer_duration_us", "mlp",
                           stats["inference_stats"]["compute_infer"]["ns"].get<uint64_t>() / 1000)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(line("nv_inference_count", "cnn", 0)), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE nv_inference_pending_request_count gauge\n"), std::string::npos);
  EXPECT_NE(text.find(line("nv_inference_pending_request_count", "mlp", 0)), std::string::npos) << text;
  EXPECT_NE(text.find(line("nv_inference_count", "we\\\"ird\\\\name\\nx\xEF\xBF\xBD", 0)), std::string::npos) << text;
}

TEST_F(MetricsTest, ThePrometheusParserReadsEveryCounter) {
  const std::string python = test_venv_python("prometheus_client", "prometheus_client");
  if (python.empty()) GTEST_SKIP() << "prometheus_client could not be installed from PyPI (offline?)";
  auto& server = start_and_send();
  const std::string out =
      command_output("'" + python + "' '" + STRATA_TESTS_DIR + "/serve/prometheus_check.py' " + std::to_string(server.port()));
  ASSERT_FALSE(out.empty()) << "prometheus_check.py failed";
  const json got = json::parse(out);
  const auto value = [&](const std::string& sample, const std::string& model) {
    for (const auto& s : got["samples"].value(sample, json::array()))
      if (s["labels"]["model"] == model && s["labels"]["version"] == "1") return s["value"].get<double>();
    ADD_FAILURE() << "no sample " << sample << " for model " << model;
    return -1.0;
  };
  // The parser names a counter's family without "_total" and its samples with it.
  EXPECT_EQ(got["types"]["nv_inference_request_success"], "counter");
  EXPECT_EQ(value("nv_inference_request_success_total", "mlp"), 3);
  EXPECT_EQ(value("nv_inference_request_failure_total", "mlp"), 1);
  EXPECT_EQ(value("nv_inference_count_total", "mlp"), 6);
  EXPECT_EQ(value("nv_inference_count_total", "cnn"), 0);
  EXPECT_EQ(got["types"]["nv_inference_pending_request_count"], "gauge");
  EXPECT_EQ(value("nv_inference_pending_request_count", "mlp"), 0);
  EXPECT_EQ(value("nv_inference_count_total", "we\"ird\\name\nx\xEF\xBF\xBD"), 0);
  EXPECT_GT(value("nv_inference_request_duration_us_total", "mlp"), value("nv_inference_compute_infer_duration_us_total", "mlp"));
}

}  // namespace
}  // namespace strata::testing
