// `strata serve --hub postgresql://...`: a team's hub on a PostgreSQL server (a throw-away
// cluster; skipped, saying why, where PostgreSQL is not installed) is served as a SQLite one is:
// answers match the in-process predictions of the same version, and a version saved by another
// process while serving is picked up without a restart, also after the PostgreSQL server itself
// restarted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "hub/postgres_cluster.hpp"
#include "serve/infer_client.hpp"
#include "serve/serve_process.hpp"
#include "serve/served_models.hpp"

namespace strata::testing {
namespace {

// A version of "mlp" with new random weights, saved over a connection of its own, as another
// process would.
void save_new_version(const std::string& url, nn::Model& mlp) {
  auto hub = hub::Hub::open(url);
  save_random_version(hub, "mlp", mlp);
}

// The versions the server lists for "mlp", once they are just `version` or after 20 s.
json versions_served(httplib::Client& client, const std::string& version) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  json versions;
  while (std::chrono::steady_clock::now() < deadline) {
    versions = body_json(client.Get("/v2/models/mlp"))["versions"];
    if (versions == json::array({version})) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return versions;
}

class PostgresHubTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = hub::testing::PostgresCluster::get();
    if (cluster_ == nullptr) GTEST_SKIP() << hub::testing::PostgresCluster::why();
    database_ = "strata_serve_" + std::to_string(::getpid());
    cluster_->create_database(database_);
    url_ = cluster_->url(database_);
  }
  void TearDown() override {
    if (cluster_ != nullptr) cluster_->drop_database(database_);
  }

  hub::testing::PostgresCluster* cluster_ = nullptr;
  std::string database_, url_;
};

TEST_F(PostgresHubTest, ServesItsModelsAndFollowsTheLatestVersion) {
  manual_seed(11);
  auto mlp = make_served_mlp();
  save_new_version(url_, *mlp);
  ServeProcess server(url_, {"--model", "mlp", "--poll-ms", "100"});
  auto client = server.client();
  const Tensor x = randn({3, 16});
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))),
                       predict_in_process(url_, "mlp", 1, x), 1e-5, 1e-6));

  save_new_version(url_, *mlp);  // another process's new version, new weights
  ASSERT_EQ(versions_served(client, "2"), json::array({"2"})) << "version 2 was not picked up within 20 s";
  const Tensor answer = infer_output(post_infer(client, "mlp", json_request("features", x)));
  EXPECT_TRUE(allclose(answer, predict_in_process(url_, "mlp", 2, x), 1e-5, 1e-6));
  EXPECT_FALSE(allclose(answer, predict_in_process(url_, "mlp", 1, x), 1e-5, 1e-6)) << "still version 1's weights";
}

// The hub's server restarted while `strata serve` runs (a cluster of the test's own): requests
// keep being answered by the loaded version, and a version saved once the server is back is
// still picked up. Before, the poller's connection stayed broken: it never saw another version.
TEST(PostgresHubRestart, ServingFollowsTheLatestVersionAcrossARestart) {
  auto own = hub::testing::PostgresCluster::start_own();
  if (!own) GTEST_SKIP() << hub::testing::PostgresCluster::why();
  own->create_database("served");
  const std::string url = own->url("served");
  manual_seed(12);
  auto mlp = make_served_mlp();
  save_new_version(url, *mlp);
  ServeProcess server(url, {"--model", "mlp", "--poll-ms", "100"});
  auto client = server.client();
  const Tensor x = randn({2, 16});
  const Tensor first = predict_in_process(url, "mlp", 1, x);
  ASSERT_TRUE(own->restart(std::chrono::milliseconds(300)));
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))), first, 1e-5, 1e-6));
  save_new_version(url, *mlp);
  ASSERT_EQ(versions_served(client, "2"), json::array({"2"}))
      << "version 2, saved after the restart, was not picked up within 20 s";
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))),
                       predict_in_process(url, "mlp", 2, x), 1e-5, 1e-6));
}

}  // namespace
}  // namespace strata::testing
