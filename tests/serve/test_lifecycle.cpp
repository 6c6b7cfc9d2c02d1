// `strata serve` over time: a newer hub version is served without a restart and without failing
// requests in flight; requests queued together run as one batch; a full queue answers 503;
// SIGTERM answers what is queued and exits 0.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "serve/serve_fixture.hpp"

namespace strata::testing {
namespace {

using LifecycleTest = ServeTest;
using Clock = std::chrono::steady_clock;

// Posts `x` to `route` from a client of its own (so several can be in flight at once).
std::future<httplib::Result> post_async(const ServeProcess& server, const std::string& route, const Tensor& x) {
  return std::async(std::launch::async, [&server, route, body = json_request("features", x)] {
    auto client = server.client();
    return post_infer(client, route, body);
  });
}

TEST_F(LifecycleTest, NewerVersionIsServedWithoutRestartOrFailedRequests) {
  auto& server = start({"--model", "mlp", "--model", "mlp:1", "--poll-ms", "100"});
  const Tensor x = randn({4, 16});
  const Tensor v1 = predict("mlp", 1, x);
  std::atomic<bool> stop{false};
  std::vector<Tensor> answers;
  std::vector<int> statuses;
  std::thread requests([&] {
    auto client = server.client();
    while (!stop) {
      auto res = post_infer(client, "mlp", json_request("features", x));
      statuses.push_back(res ? res->status : -1);
      if (res && res->status == 200) answers.push_back(output_tensor(body_json(res)["outputs"][0]));
    }
  });
  {
    auto hub = hub::Hub::open(hub_path_);
    ASSERT_EQ(save_random_version(hub, "mlp", *mlp_), 2);
  }
  const Tensor v2 = predict("mlp", 2, x);
  auto client = server.client();
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (body_json(client.Get("/v2/models/mlp"))["versions"] != json::array({"2"}) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a few requests on version 2
  stop = true;
  requests.join();
  for (int status : statuses) EXPECT_EQ(status, 200);
  ASSERT_FALSE(answers.empty());
  for (const Tensor& answer : answers) EXPECT_TRUE(allclose(answer, v1, 1e-5, 1e-6) || allclose(answer, v2, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(answers.back(), v2, 1e-5, 1e-6));
  // The version named on the command line stays served beside the latest.
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp/versions/1", json_request("features", x))), v1, 1e-5, 1e-6));
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp/versions/2", json_request("features", x))), v2, 1e-5, 1e-6));
}

TEST_F(LifecycleTest, RequestsQueuedTogetherRunAsOneBatchAndGetTheirOwnRows) {
  // Rows 1 + 2 + 3 fill a batch of 6 at once; a batch left short would wait the whole 10 s delay.
  auto& server = start({"--model", "mlp", "--max-batch-size", "6", "--max-queue-delay-us", "10000000"});
  const auto started = Clock::now();
  std::vector<Tensor> inputs;
  std::vector<std::future<httplib::Result>> answers;
  for (int64_t rows : {1, 2, 3}) {
    inputs.push_back(randn({rows, 16}));
    answers.push_back(post_async(server, "mlp", inputs.back()));
  }
  for (size_t i = 0; i < answers.size(); ++i)
    EXPECT_TRUE(allclose(infer_output(answers[i].get()), predict("mlp", 1, inputs[i]), 1e-5, 1e-6)) << "request " << i;
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(8));
}

TEST_F(LifecycleTest, AFullQueueAnswers503AndTheQueuedRequestsStillSucceed) {
  // Three requests at once, room for two; the 5 s delay keeps the first two queued.
  auto& server = start({"--model", "mlp", "--max-queue", "2", "--max-batch-size", "64", "--max-queue-delay-us", "5000000"});
  const Tensor x = randn({1, 16});
  std::vector<std::future<httplib::Result>> answers;
  for (int i = 0; i < 3; ++i) answers.push_back(post_async(server, "mlp", x));
  int ok = 0, full = 0;
  for (auto& answer : answers) {
    auto res = answer.get();
    ASSERT_TRUE(res);
    if (res->status == 200) {
      ++ok;
      EXPECT_TRUE(allclose(infer_output(res), predict("mlp", 1, x), 1e-5, 1e-6));
    } else {
      ++full;
      EXPECT_EQ(res->status, 503);
      EXPECT_NE(body_json(res)["error"].get<std::string>().find("queue is full"), std::string::npos) << res->body;
    }
  }
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(full, 1);
}

TEST_F(LifecycleTest, SigtermAnswersQueuedRequestsAndExitsZero) {
  // The 60 s delay would hold the batch; the drain runs it at once.
  auto& server = start({"--model", "mlp", "--max-batch-size", "64", "--max-queue-delay-us", "60000000"});
  const Tensor a = randn({2, 16}), b = randn({3, 16});
  auto first = post_async(server, "mlp", a), second = post_async(server, "mlp", b);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // both read and queued
  const auto signalled = Clock::now();
  server.signal(SIGTERM);
  EXPECT_TRUE(allclose(infer_output(first.get()), predict("mlp", 1, a), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(infer_output(second.get()), predict("mlp", 1, b), 1e-5, 1e-6));
  EXPECT_EQ(server.wait(), 0);
  EXPECT_LT(Clock::now() - signalled, std::chrono::seconds(20));
  auto client = server.client();
  EXPECT_FALSE(client.Get("/v2/health/live"));  // nothing listens any more
}

}  // namespace
}  // namespace strata::testing
