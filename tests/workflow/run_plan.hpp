// Shared by the search and cross-validation tests: submits a plan, runs it with an in-process
// worker, and returns its tasks in plan order, failing the test for any task that did not succeed.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::workflow::testing {

inline std::vector<Task> run_plan(const std::string& url, hub::Hub& hub, const TaskRegistry& kinds, const Plan& plan) {
  Queue q(hub);
  const PlanProgress submitted = q.submit(plan);
  Worker worker(url, kinds, {.concurrency = 1});
  worker.start();
  const PlanProgress done = q.wait_plan(submitted.plan_id, std::chrono::seconds(120));
  worker.stop();
  worker.join();
  EXPECT_TRUE(done.all_succeeded()) << done.summary();
  std::vector<Task> tasks;
  for (int64_t id : submitted.task_ids) {
    tasks.push_back(*q.get(id));
    if (tasks.back().status != TaskStatus::succeeded) ADD_FAILURE() << tasks.back().name << ": " << tasks.back().error;
  }
  return tasks;
}

}  // namespace strata::workflow::testing
