// Task kinds and parameter checks, and the in-process Worker: retries, heartbeats keeping a
// long task's lease, a lost lease seen by the task, stop().
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "support/address_sanitizer.hpp"
#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using nlohmann::json;
using strata::testing::expect_error;

TEST(TaskRegistry, ValidatesParametersAgainstTheKind) {
  TaskRegistry r;
  r.add({.name = "train",
         .params = {{.name = "lr", .type = workflow::ParamType::number, .required = true},
                    {.name = "epochs", .type = workflow::ParamType::integer, .default_value = 3},
                    {.name = "layers", .type = workflow::ParamType::array}},
         .fn = [](TaskContext&) { return json{}; }});
  const json ok = r.validate("train", {{"lr", 0.1}});
  EXPECT_EQ(ok["epochs"], 3);
  EXPECT_FALSE(ok.contains("layers"));
  EXPECT_EQ(r.validate("train", {{"lr", 1}, {"epochs", 7}})["epochs"], 7);
  expect_error([&] { r.validate("train", json::object()); }, {"\"train\"", "missing required parameter \"lr\"", "a number"});
  expect_error([&] { r.validate("train", {{"lr", "fast"}}); }, {"parameter \"lr\" must be a number", "\"fast\""});
  expect_error([&] { r.validate("train", {{"lr", 0.1}, {"epochs", 2.5}}); }, {"\"epochs\" must be an integer", "2.5"});
  expect_error([&] { r.validate("train", {{"lr", 0.1}, {"momentum", 0.9}}); },
               {"unknown parameter \"momentum\"", "lr, epochs, layers"});
  expect_error([&] { r.validate("evaluate", json::object()); }, {"unknown task kind \"evaluate\"", "train"});
  expect_error([&] { r.add({.name = "train", .fn = [](TaskContext&) { return json{}; }}); }, {"already registered"});
  expect_error([&] { r.add({.name = "nothing"}); }, {"\"nothing\" has no function"});
  EXPECT_EQ(r.names(), std::vector<std::string>{"train"});
}

using WorkerTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, WorkerTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// Fewer threads than slots (here an address-space limit that leaves room for a few 8 MiB thread
// stacks): run() stops the slots it made and throws a strata::Error saying so. Before, the
// threads it had made were destroyed unjoined and the process aborted (`strata worker
// --concurrency 100000`: "terminate called without an active exception").
TEST_P(WorkerTest, TooFewThreadsForItsSlotsIsAnErrorNotAnAbort) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's shadow memory does not fit under an address-space limit";
  if (postgres()) GTEST_SKIP() << "the thread limit is the process's, whatever the hub";
  TaskRegistry r;
  r.add({.name = "noop", .fn = [](TaskContext&) { return json{}; }});
  const auto run_with_little_address_space = [&] {
    Worker w(url_, r, {.id = "limited", .concurrency = 64});
    long pages = 0;
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr || std::fscanf(statm, "%ld", &pages) != 1) std::_Exit(3);
    std::fclose(statm);
    const rlim_t room = static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) + (rlim_t{40} << 20);
    const rlimit limit{room, room};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(4);
    try {
      w.run();
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::_Exit(0);
    }
    std::_Exit(1);
  };
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_with_little_address_space(), ::testing::ExitedWithCode(0), "could start only [0-9]+ of 64 task slots");
}

// A slot thread's tensor work makes an OpenMP team of its own: with two slots, each runs its
// tasks on half the cores, so that the teams stay within them (docs/workflow.md).
TEST_P(WorkerTest, EachSlotRunsItsTasksOnItsShareOfTheCores) {
  TaskRegistry r;
  r.add({.name = "threads", .fn = [](TaskContext&) { return json{{"threads", intra_op_thread_limit()}}; }});
  auto hub = open();
  Queue q(hub);
  for (const int slots : {1, 2}) {
    SCOPED_TRACE(std::to_string(slots) + " slots");
    std::vector<int64_t> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(q.submit({.kind = "threads"}));
    Worker w(url_, r, {.id = "slots-" + std::to_string(slots), .concurrency = slots, .exit_when_idle = true});
    w.start();
    for (int64_t id : ids) q.wait(id, std::chrono::seconds(10));
    w.stop();
    w.join();
    for (int64_t id : ids) {
      const auto t = q.get(id);
      ASSERT_EQ(t->status, TaskStatus::succeeded) << t->error;
      EXPECT_EQ(json::parse(*t->result)["threads"], std::max(1, intra_op_threads_max() / slots));
    }
  }
}

TEST_P(WorkerTest, RunsRetriesAndKeepsLongTasksLeased) {
  TaskRegistry r;
  std::atomic<int> calls{0};
  r.add({.name = "square",
         .params = {{.name = "x", .type = workflow::ParamType::integer, .required = true}},
         .fn = [&](TaskContext& ctx) {
           ++calls;
           ctx.log("squaring " + ctx.params["x"].dump());
           const int64_t x = ctx.params["x"];
           return json{{"y", x * x}};
         }});
  r.add({.name = "flaky",
         .fn = [](TaskContext& ctx) -> json {
           if (ctx.task.attempts < 3) throw Error("flaky attempt " + std::to_string(ctx.task.attempts));
           return {{"attempt", ctx.task.attempts}};
         }});
  r.add({.name = "slow",  // outlives its 0.3 s lease several times: only heartbeats keep it
         .fn = [](TaskContext& ctx) {
           std::this_thread::sleep_for(std::chrono::milliseconds(900));
           return json{{"lost", ctx.lease_lost()}};
         }});
  auto hub = open();
  Queue q(hub);
  std::vector<int64_t> squares;
  for (int x = 0; x < 6; ++x) squares.push_back(q.submit({.kind = "square", .params = json{{"x", x}}.dump()}));
  const int64_t flaky = q.submit({.kind = "flaky", .max_attempts = 3, .retry_delay_seconds = 0.02});
  const int64_t slow = q.submit({.kind = "slow"});
  const int64_t bad = q.submit({.kind = "square", .params = R"({"x": "two"})"});

  std::mutex mu;
  std::vector<std::string> events;
  Worker w(url_, r, {.id = "in-process", .concurrency = 2, .lease_seconds = 0.3, .on_event = [&](const std::string& e) {
                       std::lock_guard lock(mu);
                       events.push_back(e);
                     }});
  w.start();
  for (int64_t id : {flaky, slow, bad, squares.back()}) q.wait(id, std::chrono::seconds(10));
  w.stop();
  w.join();

  for (int x = 0; x < 6; ++x) {
    const auto t = q.get(squares[x]);
    ASSERT_EQ(t->status, TaskStatus::succeeded);
    EXPECT_EQ(json::parse(*t->result)["y"], x * x);
    EXPECT_EQ(t->log_tail, "squaring " + std::to_string(x) + "\n");
    EXPECT_EQ(t->worker, "in-process");
  }
  const auto f = q.get(flaky);
  EXPECT_EQ(f->status, TaskStatus::succeeded);
  EXPECT_EQ(json::parse(*f->result)["attempt"], 3);
  const auto s = q.get(slow);
  EXPECT_EQ(s->status, TaskStatus::succeeded);
  EXPECT_EQ(s->attempts, 1) << "heartbeats must keep the lease: " << s->error;
  EXPECT_EQ(json::parse(*s->result)["lost"], false);
  const auto b = q.get(bad);
  EXPECT_EQ(b->status, TaskStatus::failed);
  EXPECT_EQ(b->attempts, 1) << "bad parameters are not retried";
  EXPECT_NE(b->error.find("parameter \"x\" must be an integer"), std::string::npos) << b->error;
  EXPECT_EQ(calls.load(), 6);
  const auto st = w.stats();
  EXPECT_EQ(st.succeeded, 8);
  EXPECT_EQ(st.failed, 3);  // flaky twice, bad once
  EXPECT_EQ(st.refused, 0);
  std::lock_guard lock(mu);
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const std::string& e) { return e.rfind("retrying", 0) == 0; }), 2);
}

TEST_P(WorkerTest, TaskSeesItsLeaseLost) {
  TaskRegistry r;
  std::atomic<bool> saw_lost{false};
  r.add({.name = "long", .fn = [&](TaskContext& ctx) {
           for (int i = 0; i < 200 && !ctx.lease_lost(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
           saw_lost = ctx.lease_lost();
           return json{};
         }});
  auto hub = open();
  Queue q(hub);
  const int64_t id = q.submit({.kind = "long"});
  Worker w(url_, r, {.lease_seconds = 0.15});
  w.start();
  while (q.get(id)->status != TaskStatus::running) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(q.cancel(id));
  for (int i = 0; i < 200 && w.stats().refused == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  w.stop();
  w.join();
  EXPECT_TRUE(saw_lost.load());
  EXPECT_EQ(w.stats().refused, 1);
  EXPECT_EQ(q.get(id)->status, TaskStatus::cancelled);
}

}  // namespace
}  // namespace strata::workflow
