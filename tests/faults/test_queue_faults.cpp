// Faults from below in the workflow queue (issue 43.2): every file system call of a lease and of
// a result commit with a model version fails in turn. Each run ends in a strata::Error or a
// success; the task is never lost (pending, or leased until its lease expires, or succeeded
// with its version whole), no version or blob file is half there, and the task completes once
// the fault is gone.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "faults/fault_walk.hpp"
#include "hub/postgres_cluster.hpp"
#include "strata/hub/hub.hpp"
#include "strata/strata.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/task_outputs.hpp"
#include "support/temp_dir.hpp"

namespace strata::testing {
namespace {

using workflow::TaskStatus;

constexpr double kLeaseSeconds = 1.0;

void walk_task_life(const std::string& url, const FaultTarget& target, const std::string& blob_folder) {
  auto hub = hub::Hub::open(url);
  workflow::Queue queue(hub);
  manual_seed(1);
  const io::NamedTensors weights = {{"w", randn({64, 64})}, {"b", randn({64})}};
  int64_t task = 0, versions = 0;
  // Leases the task, stages its model and commits the result with it.
  const auto lease_and_commit = [&](const workflow::Lease& lease) {
    workflow::TaskOutputs outputs;
    outputs.save_model("trained", weights);
    return queue.complete(lease, R"({"ok": true})", "", &outputs);
  };
  const int64_t calls = walk_faults(
      target,
      [&] {
        task = 0;  // stays 0 if the submit fails
        task = queue.submit({.kind = "train", .name = "t"});
        const auto lease = queue.lease("w", {"train"}, {}, kLeaseSeconds);
        ASSERT_TRUE(lease.has_value());
        EXPECT_TRUE(lease_and_commit(*lease));
      },
      [&](const WalkStep& step) {
        const auto t = queue.get(task);
        if (!t) {  // the submit itself failed: nothing of it is there
          EXPECT_TRUE(step.threw);
        } else if (t->status != TaskStatus::succeeded) {
          EXPECT_TRUE(step.threw);
          EXPECT_TRUE(t->status == TaskStatus::pending || t->status == TaskStatus::leased) << workflow::to_string(t->status);
          EXPECT_EQ(static_cast<int64_t>(hub.list_models("trained").size()), versions) << "a version without its task";
          // The fault is gone: the task is leased again (once a lease a failed commit left expires) and completes.
          std::optional<workflow::Lease> again;
          for (int i = 0; i < 40 && !again; ++i) {
            again = queue.lease("w", {"train"}, {}, kLeaseSeconds);
            if (!again) std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
          ASSERT_TRUE(again.has_value()) << "the task never became leasable again";
          EXPECT_TRUE(lease_and_commit(*again));
        }
        const auto done = queue.get(task);
        if (done) {
          EXPECT_EQ(done->status, TaskStatus::succeeded);
          EXPECT_NE(done->result.value_or("").find("\"outputs\""), std::string::npos) << done->result.value_or("");
        }
        const auto listed = hub.list_models("trained");
        for (const auto& info : listed) EXPECT_NO_THROW(hub.load_model("trained", info.version));
        versions = static_cast<int64_t>(listed.size());
        if (!blob_folder.empty())
          EXPECT_EQ(static_cast<int64_t>(files_in(blob_folder).size()), hub.store_size().blobs)
              << "blob files that no row holds";
      });
  std::printf("submit, lease and commit with a model (%s): %lld calls, each failed in turn\n",
              target.port ? "PostgreSQL" : "SQLite", static_cast<long long>(calls));
}

using QueueFaults = TempDirTest;

TEST_F(QueueFaults, ALeaseAndACommitFailingAtAnyCallLoseNothing) {
  const std::string url = (dir_ / "hub.db").string();
  walk_task_life(url, {.folder = dir_.string()}, url + "-blobs");
}

// The same on PostgreSQL, its connection dropped at each statement in turn.
TEST(ConnectionFaults, ALeaseAndACommitOnPostgresLoseNothing) {
  auto* cluster = hub::testing::PostgresCluster::get();
  if (!cluster) GTEST_SKIP() << hub::testing::PostgresCluster::why();
  cluster->drop_database("faults_queue");
  cluster->create_database("faults_queue");
  walk_task_life(cluster->url("faults_queue"), {.port = postgres_port(cluster->url("x"))}, "");
}

}  // namespace
}  // namespace strata::testing
