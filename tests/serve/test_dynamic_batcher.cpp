// The dynamic batcher in process: every request runs on a batch worker, never on the thread that
// submitted it, with the worker's fixed share of the cores, and every one gets the outputs its
// own rows give, whether it ran alone or in a batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/nn/lambda.hpp"
#include "strata/nn/nn.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/serve/dynamic_batcher.hpp"

namespace strata::serve {
namespace {

using namespace std::chrono_literals;

// Records, for every run, the thread it ran on, and whether a copy of the model ever ran on two
// threads at once.
struct RunLog {
  std::mutex mutex;
  std::vector<std::thread::id> threads;
  std::atomic<bool> overlapped{false};
};

// A served MLP (16 -> 4) whose first layer notes each run in `log`, with `replicas` copies
// sharing one set of weights, and the same model for computing expected outputs here.
struct Served {
  std::shared_ptr<ServedVersion> version = std::make_shared<ServedVersion>();
  std::shared_ptr<nn::Model> reference;
};

Served make_served(RunLog& log, int replicas) {
  Served s;
  const Tensor w = randn({16, 4});
  auto make = [&] {
    auto x = nn::Input({-1, 16}, "features");
    auto running = std::make_shared<std::atomic<int>>(0);  // runs of this copy now
    auto noted = nn::Lambda([&log, running](const Tensor& t) {
      if (++*running > 1) log.overlapped = true;
      {
        std::lock_guard lock(log.mutex);
        log.threads.push_back(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(50us);  // widen the window a second run would overlap in
      --*running;
      return t;
    })(x);
    auto y = nn::Lambda([w = w.clone()](const Tensor& t) { return matmul(t, w); })(noted);
    auto model = std::make_shared<nn::Model>(x, y, "mlp");
    model->eval();
    return model;
  };
  for (int i = 0; i < replicas; ++i) s.version->replicas.push_back(make());
  s.reference = make();
  log.threads.clear();  // building a model runs its layers once to infer their shapes
  s.version->name = "mlp";
  s.version->version = 1;
  return s;
}

Tensor expected(nn::Model& model, const Tensor& x) {
  NoGradGuard no_grad;
  return model.run({x})[0];
}

// A batch's rows come from a matrix product, one row's alone from a vector one: they differ in
// the last bits. Another request's rows would differ by the values' whole size (about 4).
bool same(const Tensor& a, const Tensor& b) { return allclose(a, b, 1e-5, 1e-5); }

TEST(DynamicBatcher, EveryRequestRunsOnAWorkerNeverOnTheCaller) {
  RunLog log;
  Served s = make_served(log, 1);
  {
    // One row on an idle batcher with no delay: it could only run alone, and still goes to the worker.
    DynamicBatcher batcher({.max_batch_size = 64, .max_queue_delay = 0us});
    const Tensor x = randn({1, 16});
    const Tensor answer = batcher.submit(s.version, {x}).get().at(0);
    EXPECT_TRUE(same(answer, expected(*s.reference, x)));
  }
  {
    // A delay to gather others in: an idle batcher waits for them, on its worker.
    DynamicBatcher batcher({.max_batch_size = 64, .max_queue_delay = 20ms});
    const Tensor x = randn({5, 16});
    const Tensor answer = batcher.submit(s.version, {x}).get().at(0);
    EXPECT_TRUE(same(answer, expected(*s.reference, x)));
  }
  ASSERT_EQ(log.threads.size(), 4u);  // each batcher's run, then its reference
  for (size_t run : {0, 2}) EXPECT_NE(log.threads[run], std::this_thread::get_id());
}

// A worker's OpenMP team is its share of the cores, whatever the load: its clients on the same
// machine must not shrink it, and two workers' teams together stay within the cores.
TEST(DynamicBatcher, EachWorkerRunsWithItsShareOfTheCores) {
  const int cores = intra_op_threads_max();
  for (int workers : {1, 2}) {
    std::mutex mutex;
    std::vector<int> limits;
    auto served = std::make_shared<ServedVersion>();
    for (int i = 0; i < workers; ++i) {
      auto x = nn::Input({-1, 4}, "features");
      auto noted = nn::Lambda([&](const Tensor& t) {
        std::lock_guard lock(mutex);
        limits.push_back(intra_op_threads_follow_load() == FollowLoad::kNo ? intra_op_thread_limit() : -1);
        return t;
      })(x);
      served->replicas.push_back(std::make_shared<nn::Model>(x, noted, "noted"));
    }
    limits.clear();  // building a model runs its layers once to infer their shapes
    DynamicBatcher batcher({.max_batch_size = 1, .workers = workers});
    std::vector<std::future<std::vector<Tensor>>> answers;
    for (int i = 0; i < 8; ++i) answers.push_back(batcher.submit(served, {randn({1, 4})}));
    for (auto& answer : answers) answer.get();
    ASSERT_EQ(limits.size(), 8u);
    for (int limit : limits) EXPECT_EQ(limit, std::max(1, cores / workers)) << workers << " workers";
  }
}

// Many threads at once on two workers: each replica runs one batch at a time (a model keeps
// per-call state), and every answer is its own rows'.
TEST(DynamicBatcher, TwoWorkersKeepToTheirReplicasAndEveryAnswerIsItsOwn) {
  RunLog log;
  Served s = make_served(log, 2);
  DynamicBatcher batcher({.max_batch_size = 8, .max_queue_delay = 0us, .workers = 2});
  constexpr int kThreads = 8, kRequests = 40;
  std::vector<Tensor> inputs;
  for (int i = 0; i < kThreads * kRequests; ++i) inputs.push_back(randn({1 + i % 2, 16}));
  std::vector<Tensor> answers(inputs.size());
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t)
    callers.emplace_back([&, t] {
      for (int r = 0; r < kRequests; ++r) {
        const size_t i = static_cast<size_t>(t * kRequests + r);
        answers[i] = batcher.submit(s.version, {inputs[i]}).get().at(0);
      }
    });
  std::vector<std::thread::id> caller_ids;
  for (auto& c : callers) {
    caller_ids.push_back(c.get_id());
    c.join();
  }
  EXPECT_FALSE(log.overlapped) << "a copy of the model ran two batches at once";
  for (std::thread::id id : log.threads)
    EXPECT_EQ(std::find(caller_ids.begin(), caller_ids.end(), id), caller_ids.end()) << "a run on a caller";
  EXPECT_LT(log.threads.size(), inputs.size()) << "no request was batched with another";
  for (size_t i = 0; i < inputs.size(); ++i)
    ASSERT_TRUE(same(answers[i], expected(*s.reference, inputs[i]))) << "request " << i;
}

// The version's statistics (GET .../stats, /metrics) agree with the runs the model saw: a run per
// execution, every row inferred, every request queued and part of a run, the batch sizes those
// runs had, and the requests pending while they ran.
TEST(DynamicBatcher, StatisticsCountEveryRunRowAndRequest) {
  std::vector<int64_t> run_rows;  // rows of each run
  uint64_t most_pending = 0;      // requests seen waiting while a run ran
  auto version = std::make_shared<ServedVersion>();
  auto x = nn::Input({-1, 16}, "features");
  auto noted = nn::Lambda([&](const Tensor& t) {
    run_rows.push_back(t.size(0));  // one worker: one run at a time
    most_pending = std::max(most_pending, version->statistics.snapshot().pending);
    std::this_thread::sleep_for(200us);  // long enough for requests to queue behind it
    return t;
  })(x);
  version->replicas = {std::make_shared<nn::Model>(x, noted, "noted")};
  run_rows.clear();  // building a model runs its layers once to infer their shapes
  DynamicBatcher batcher({.max_batch_size = 8, .max_queue_delay = 0us, .workers = 1});
  constexpr int kThreads = 6, kRequests = 20;
  int64_t rows = 0;
  std::vector<Tensor> inputs;  // a thread's requests all have its number of rows: 1, 2 or 3
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(randn({1 + t % 3, 16}));
    rows += kRequests * inputs.back().size(0);
  }
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t)
    callers.emplace_back([&, t] {
      for (int r = 0; r < kRequests; ++r) batcher.submit(version, {inputs[t]}).get();
    });
  for (auto& c : callers) c.join();

  const StatisticsSnapshot stats = version->statistics.snapshot();
  EXPECT_EQ(stats.inference_count, static_cast<uint64_t>(rows));
  EXPECT_EQ(stats.execution_count, run_rows.size());
  EXPECT_LT(run_rows.size(), static_cast<size_t>(kThreads * kRequests)) << "no request was batched with another";
  std::map<int64_t, uint64_t> runs_by_rows;
  for (int64_t r : run_rows) ++runs_by_rows[r];
  ASSERT_EQ(stats.batches.size(), runs_by_rows.size());
  for (const auto& [batch_rows, batch] : stats.batches) {
    EXPECT_EQ(batch.compute_infer.count, runs_by_rows[batch_rows]) << "batch size " << batch_rows;
    EXPECT_EQ(batch.compute_input.count, batch.compute_infer.count);
    EXPECT_GE(batch.compute_infer.ns, batch.compute_infer.count * 200'000) << "each run slept 200 us";
  }
  for (const DurationStat* per_request : {&stats.queue, &stats.compute_input, &stats.compute_infer, &stats.compute_output})
    EXPECT_EQ(per_request->count, static_cast<uint64_t>(kThreads * kRequests));
  // Each caller has one request out: while a run ran, the others' waited, and none waits now.
  EXPECT_GE(most_pending, 1u);
  EXPECT_LE(most_pending, static_cast<uint64_t>(kThreads - 1));
  EXPECT_EQ(stats.pending, 0u);
  // Success and failure are the HTTP handler's to record, with the time the whole request took.
  EXPECT_EQ(stats.success.count + stats.fail.count, 0u);
}

}  // namespace
}  // namespace strata::serve
