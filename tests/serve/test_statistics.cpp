// The statistics extension (Triton's GET /v2/models[/NAME[/versions/V]]/stats) of a real
// `strata serve`: requests answered and refused, rows and runs counted per model version, the
// batch sizes run, and the routes' 404s.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <tuple>

#include "serve/serve_fixture.hpp"

namespace strata::testing {
namespace {

using StatisticsTest = ServeTest;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json stats_of(httplib::Client& client, const std::string& path) {
  auto res = client.Get(path.c_str());
  EXPECT_TRUE(res && res->status == 200) << path << ": " << (res ? res->body : httplib::to_string(res.error()));
  return body_json(res);
}

TEST_F(StatisticsTest, CountRequestsRowsRunsAndRefusals) {
  // No batching: every request is a run of its own rows, so the runs are known in advance.
  auto client = start({"--model", "mlp", "--model", "cnn", "--max-batch-size", "1"}).client();
  const json fresh = stats_of(client, "/v2/models/mlp/stats");
  ASSERT_EQ(fresh["model_stats"].size(), 1u);
  EXPECT_EQ(fresh["model_stats"][0]["inference_count"], 0);
  EXPECT_EQ(fresh["model_stats"][0]["last_inference"], 0);

  const int64_t before = now_ms();
  for (int64_t rows : {3, 1, 2, 3}) ASSERT_EQ(post_infer(client, "mlp", json_request("features", randn({rows, 16})))->status, 200);
  ASSERT_EQ(post_infer(client, "mlp", json_request("features", randn({2, 15})))->status, 400);  // wrong shape
  ASSERT_EQ(post_infer(client, "mlp", "{")->status, 400);
  ASSERT_EQ(post_infer(client, "nope", "{")->status, 404);  // no model to count it against
  const int64_t after = now_ms();

  const json mlp = stats_of(client, "/v2/models/mlp/versions/1/stats")["model_stats"].at(0);
  EXPECT_EQ(mlp["name"], "mlp");
  EXPECT_EQ(mlp["version"], "1");
  EXPECT_EQ(mlp["inference_count"], 9);
  EXPECT_EQ(mlp["execution_count"], 4);
  EXPECT_GE(mlp["last_inference"].get<int64_t>(), before);
  EXPECT_LE(mlp["last_inference"].get<int64_t>(), after);
  const json& per_request = mlp["inference_stats"];
  EXPECT_EQ(per_request["success"]["count"], 4);
  EXPECT_EQ(per_request["fail"]["count"], 2);
  for (const char* phase : {"success", "queue", "compute_infer"}) {
    EXPECT_EQ(per_request[phase]["count"], 4) << phase;
    EXPECT_GT(per_request[phase]["ns"].get<uint64_t>(), 0u) << phase;
  }
  // A request's whole time in the server holds its run.
  EXPECT_GT(per_request["success"]["ns"].get<uint64_t>(), per_request["compute_infer"]["ns"].get<uint64_t>());
  EXPECT_EQ(per_request["cache_hit"]["count"], 0);
  const json batches = mlp["batch_stats"];
  ASSERT_EQ(batches.size(), 3u);
  for (const auto& [i, rows, runs] : {std::tuple{0, 1, 1}, std::tuple{1, 2, 1}, std::tuple{2, 3, 2}}) {
    EXPECT_EQ(batches[i]["batch_size"], rows);
    EXPECT_EQ(batches[i]["compute_infer"]["count"], runs) << "batch size " << rows;
  }

  // Every model served, the CNN untouched.
  const json all = stats_of(client, "/v2/models/stats")["model_stats"];
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["inference_count"], 9);
  EXPECT_EQ(all[1]["name"], "cnn");
  EXPECT_EQ(all[1]["inference_count"], 0);
  EXPECT_EQ(all[1]["inference_stats"]["fail"]["count"], 0);

  auto server = body_json(client.Get("/v2"));
  EXPECT_NE(std::find(server["extensions"].begin(), server["extensions"].end(), "statistics"),
            server["extensions"].end());
}

TEST_F(StatisticsTest, UnknownModelsAndVersionsAre404) {
  auto client = start().client();
  auto unknown = client.Get("/v2/models/nope/stats");
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(body_json(unknown)["error"], "unknown model 'nope'");
  auto version = client.Get("/v2/models/mlp/versions/9/stats");
  EXPECT_EQ(version->status, 404);
  EXPECT_NE(body_json(version)["error"].get<std::string>().find("serving version 1"), std::string::npos);
  EXPECT_EQ(client.Get("/v2/models/mlp/versions/x/stats")->status, 400);
}

// `--model mlp --model mlp:1` serves version 1 twice: one copy, so one set of statistics that
// counts the requests of both routes.
TEST_F(StatisticsTest, AVersionNamedTwiceIsLoadedOnceAndCountedOnce) {
  auto client = start({"--model", "mlp", "--model", "mlp:1"}).client();
  ASSERT_EQ(post_infer(client, "mlp", json_request("features", randn({2, 16})))->status, 200);
  ASSERT_EQ(post_infer(client, "mlp/versions/1", json_request("features", randn({1, 16})))->status, 200);
  const json stats = stats_of(client, "/v2/models/mlp/stats")["model_stats"];
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0]["inference_count"], 3);
  EXPECT_EQ(stats[0]["inference_stats"]["success"]["count"], 2);
}

}  // namespace
}  // namespace strata::testing
