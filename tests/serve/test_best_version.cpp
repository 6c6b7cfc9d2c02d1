// `--model NAME@max:METRIC` / `@min:METRIC`: the server follows the version with the best metric
// in the hub, without a restart: a better new version is swapped in, a worse one is not, and
// when the best version is deleted the next best comes back. Answers are compared with the
// in-process prediction of the version the server says it serves.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "serve/command_output.hpp"
#include "serve/serve_fixture.hpp"
#include "strata/serve/model_repository.hpp"

namespace strata::testing {
namespace {

using BestVersionTest = ServeTest;

// Waits (up to 30 s) until the server says it serves `version` of `route`'s model; returns the last answer.
std::string served_version(const ServeProcess& server, const std::string& route, const std::string& version) {
  auto client = server.client();
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    got = body_json(client.Get("/v2/models/" + route))["versions"][0].get<std::string>();
    if (got == version) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return got;
}

TEST_F(BestVersionTest, FollowsTheBestVersionByAMetricWithoutRestart) {
  auto hub = hub::Hub::open(hub_path_);  // version 1 of each (the fixture's) has no metrics
  save_random_version(hub, "mlp", *mlp_, {.metrics = {{"val_accuracy", 0.7}}});  // 2
  save_random_version(hub, "mlp", *mlp_, {.metrics = {{"val_accuracy", 0.9}}});  // 3
  save_random_version(hub, "mlp", *mlp_, {.metrics = {{"val_accuracy", 0.8}}});  // 4
  save_random_version(hub, "cnn", *cnn_, {.metrics = {{"val_loss", 0.3}}});      // 2
  save_random_version(hub, "cnn", *cnn_, {.metrics = {{"val_loss", 0.6}}});      // 3
  auto& server = start({"--model", "mlp@max:val_accuracy", "--model", "cnn@min:val_loss", "--poll-ms", "100"});
  auto client = server.client();
  const Tensor x = randn({2, 16});
  EXPECT_EQ(served_version(server, "mlp", "3"), "3");
  EXPECT_EQ(served_version(server, "cnn", "2"), "2");
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))), predict("mlp", 3, x), 1e-5, 1e-6));

  save_random_version(hub, "mlp", *mlp_, {.metrics = {{"val_accuracy", 0.95}}});  // 5: better
  EXPECT_EQ(served_version(server, "mlp", "5"), "5");
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))), predict("mlp", 5, x), 1e-5, 1e-6));

  save_random_version(hub, "mlp", *mlp_, {.metrics = {{"val_accuracy", 0.1}}});  // 6: newer, worse
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // five polls
  EXPECT_EQ(served_version(server, "mlp", "5"), "5");

  hub.delete_model("mlp", 5);  // the best goes: the next best (3) comes back
  EXPECT_EQ(served_version(server, "mlp", "3"), "3");
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp/versions/3", json_request("features", x))),
                       predict("mlp", 3, x), 1e-5, 1e-6));
}

TEST_F(BestVersionTest, AMetricNoVersionHasOrANameFollowedTwiceIsRefusedAtStart) {
  const std::string cli = std::string(STRATA_CLI_PATH) + " serve --hub '" + hub_path_ + "' --port 0 ";
  std::string out = command_output(cli + "--model mlp@max:val_accuracy 2>&1 || true");
  EXPECT_NE(out.find("no version of model 'mlp' has the metric 'val_accuracy'"), std::string::npos) << out;
  out = command_output(cli + "--model mlp --model 'mlp@min:loss' 2>&1 || true");
  EXPECT_NE(out.find("'mlp' is followed twice"), std::string::npos) << out;
  out = command_output(cli + "--model 'mlp@max:' 2>&1 || true");
  EXPECT_NE(out.find("expected --model NAME@max:METRIC"), std::string::npos) << out;
}

TEST(ModelSpecTest, ParsesLatestPinnedAndBest) {
  using serve::parse_model_spec;
  EXPECT_EQ(parse_model_spec("mlp").name, "mlp");
  EXPECT_TRUE(parse_model_spec("mlp").follows());
  EXPECT_EQ(parse_model_spec("mlp:3").version, 3);
  EXPECT_FALSE(parse_model_spec("mlp:3").follows());
  const auto best = parse_model_spec("team@lab@max:val_accuracy");  // only the last @max: is the suffix
  EXPECT_EQ(best.name, "team@lab");
  EXPECT_EQ(best.best_by, "val_accuracy");
  EXPECT_EQ(best.order, hub::Order::descending);
  EXPECT_EQ(parse_model_spec("gan@min:fid").order, hub::Order::ascending);
  EXPECT_THROW(parse_model_spec("@max:acc"), Error);
  EXPECT_THROW(parse_model_spec("mlp@min:"), Error);
}

}  // namespace
}  // namespace strata::testing
