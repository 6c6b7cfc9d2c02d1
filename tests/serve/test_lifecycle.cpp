// `strata serve` over time: a newer hub version is served without a restart and without failing
// requests in flight; requests queued together run as one batch; a full queue answers 503;
// SIGTERM answers what is queued and exits 0; a second server cannot take a port in use; serving
// more connections adds no threads (no OpenMP team per HTTP thread).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "support/process_threads.hpp"
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

// `strata serve --hub HUB ARGS` expected to refuse to start: whether it exited with status 1, and
// what it printed. Under `timeout`: a server that does start would serve on and never return.
std::pair<bool, std::string> serve_that_must_fail(const std::string& hub, const std::string& args) {
  const std::string command = "timeout 30 " + std::string(STRATA_CLI_PATH) + " serve --hub " + hub + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {false, "cannot run " + command};
  std::string said;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) said += buffer;
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) && WEXITSTATUS(status) == 1, said};
}

// httplib's default socket options include SO_REUSEPORT: a second `strata serve` on the same port
// bound it too and the kernel split the connections between the two servers.
TEST_F(LifecycleTest, ASecondServerOnAPortInUseFailsAndNamesIt) {
  auto& first = start({"--model", "mlp"});
  const std::string port = std::to_string(first.port());
  const auto [exited_1, said] = serve_that_must_fail(hub_path_, " --model cnn --port " + port);
  EXPECT_TRUE(exited_1) << said;
  EXPECT_NE(said.find("cannot listen on 127.0.0.1:" + port), std::string::npos) << said;
  // The first server still answers every request with its own model.
  auto client = first.client();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(client.Get("/v2/models/cnn").value().status, 404);
}

// A port outside 16 bits: httplib would bind it modulo 65536 while the server named the port asked.
TEST_F(LifecycleTest, APortOutsideSixteenBitsIsRefusedAndNamed) {
  for (const std::string port : {"99999", "-1"}) {
    const auto [exited_1, said] = serve_that_must_fail(hub_path_, " --model mlp --port " + port);
    EXPECT_TRUE(exited_1) << said;
    EXPECT_NE(said.find("the port should be from 0 to 65535, got " + port), std::string::npos) << said;
  }
}

// Options that would make a server that refuses everything (--max-queue 0, --max-body-bytes 0)
// or one that exhausts the machine (a model copy and a thread per worker) are refused, naming the
// bounds.
TEST_F(LifecycleTest, OptionsOutOfRangeAreRefusedNamingTheBounds) {
  for (const auto& [args, bounds] : {std::pair<std::string, std::string>{"--workers 100000", "not in range 1 to 1024"},
                                     {"--http-threads 0", "not in range 1 to 10000"},
                                     {"--max-queue 0", "not in range 1 to"},
                                     {"--max-body-bytes 0", "not in range 1 to"}}) {
    const auto [exited_1, said] = serve_that_must_fail(hub_path_, " --model mlp " + args);
    EXPECT_TRUE(exited_1) << args << ": " << said;
    EXPECT_NE(said.find(bounds), std::string::npos) << args << ": " << said;
  }
}

// Only the batch worker may own an OpenMP team: a team per HTTP thread (a request run on the
// thread that received it) pushed libgomp's threads past the cores, and then every parallel
// region slept and woke its team. So requests on ever more connections must not add threads.
TEST_F(LifecycleTest, ServingMoreConnectionsAddsNoThreads) {
  auto& server = start({"--model", "cnn", "--http-threads", "16"});
  const std::string body = json_request("image", randn({1, 8, 8, 1}));
  auto infer_on_a_new_connection = [&] {
    auto client = server.client();
    return post_infer(client, "cnn", body).value().status;
  };
  ASSERT_EQ(infer_on_a_new_connection(), 200);
  const int before = process_thread_count(server.pid());
  ASSERT_GT(before, 16);
  // 12 connections at once, then 12 one after another: each lands on an HTTP thread of its own.
  std::vector<std::future<int>> together;
  for (int i = 0; i < 12; ++i) together.push_back(std::async(std::launch::async, infer_on_a_new_connection));
  for (auto& status : together) ASSERT_EQ(status.get(), 200);
  for (int i = 0; i < 12; ++i) ASSERT_EQ(infer_on_a_new_connection(), 200);
  EXPECT_EQ(process_thread_count(server.pid()), before);
}

}  // namespace
}  // namespace strata::testing
