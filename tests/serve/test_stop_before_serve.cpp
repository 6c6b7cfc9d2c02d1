// InferenceServer and Dashboard stop when stop() comes before serve() has begun to accept: what
// happens when SIGTERM reaches `strata serve` or `strata ui` just after "listening on". httplib's
// own stop() does nothing until its accept loop runs, so serve() used to block for good.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "serve/serve_fixture.hpp"
#include "strata/serve/dashboard.hpp"
#include "strata/serve/inference_server.hpp"

namespace strata::testing {
namespace {

using StopBeforeServeTest = ServeTest;

// Calls stop() then serve() and expects serve() to return within seconds; if it does not, stops
// it again (httplib now listens, so that works) to end the test with a failure, not a hang.
template <class Server>
void expect_serve_returns_after_an_early_stop(Server& server) {
  server.bind();
  server.stop();
  auto served = std::async(std::launch::async, [&] { server.serve(); });
  const bool returned = served.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  EXPECT_TRUE(returned) << "serve() went on after stop()";
  while (served.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) server.stop();
}

TEST_F(StopBeforeServeTest, InferenceServerStoppedBeforeServingReturnsAtOnce) {
  serve::ModelRepository models(hub_path_, {serve::parse_model_spec("mlp")}, 1);
  serve::DynamicBatcher batcher({});
  serve::InferenceServer server(models, batcher, {.port = 0});
  expect_serve_returns_after_an_early_stop(server);
}

TEST_F(StopBeforeServeTest, DashboardStoppedBeforeServingReturnsAtOnce) {
  serve::Dashboard dashboard(hub_path_, {.port = 0});
  expect_serve_returns_after_an_early_stop(dashboard);
}

}  // namespace
}  // namespace strata::testing
