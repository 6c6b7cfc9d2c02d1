// Issue 13.1: one process saving versions while another keeps opening the same SQLite hub (as
// `strata hub models` or a reconnecting worker does). Each open sweeps the blob folder of files
// no row refers to; a new blob file used to be visible, unlocked and unreferenced between its
// creation and its lock, so a sweep could delete it and its version, once committed, no longer
// loaded ("its blob file ... is gone"). STRATA_TEST_BLOB_LOCK_DELAY_MS widens that moment from
// microseconds to milliseconds, so the race is hit on every run, not once in thousands of saves.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "hub/hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

TEST_P(HubTest, ASweepNeverRemovesAFileThatALiveSaveCanStillCommit) {
  constexpr int kSaves = 40;
  const pid_t saver = ::fork();
  if (saver == 0) {
    int rc = 0;
    try {
      ::setenv("STRATA_TEST_BLOB_LOCK_DELAY_MS", "10", 1);
      Hub hub = open();
      for (int i = 0; i < kSaves; ++i) hub.save_model("m", small_model(static_cast<uint64_t>(i)));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "saver: %s\n", e.what());
      rc = 1;
    }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  // Opens about every 20 ms: most 10 ms windows between a file's creation and its lock see one.
  int opens = 0, status = 0;
  while (::waitpid(saver, &status, WNOHANG) == 0) {
    { Hub other = open(); }
    ++opens;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the saving process failed";
  EXPECT_GT(opens, kSaves / 4) << "the hub was hardly opened while saving: the race was not tried";

  Hub hub = open({.cache_bytes = 0});
  const auto versions = hub.list_models("m", {.limit = 2 * kSaves});
  ASSERT_EQ(versions.size(), static_cast<size_t>(kSaves));
  int lost = 0;
  for (const auto& v : versions) {
    try {
      expect_same_weights(hub.load_model("m", v.version).weights, small_model(static_cast<uint64_t>(v.version - 1)));
    } catch (const Error& e) {
      ++lost;
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_EQ(lost, 0) << "of " << kSaves << " committed versions";
  EXPECT_EQ(blob_files(), static_cast<size_t>(kSaves));  // and no orphan left behind
}

}  // namespace
}  // namespace strata::hub::testing
