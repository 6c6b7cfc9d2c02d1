// Several processes on one hub: a save killed with SIGKILL leaves no trace, concurrent saves
// get distinct versions, a fresh hub opened by many processes at once, exit() writing what a run
// still buffers, and deleting a model while another connection loads it.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <set>
#include <thread>

#include "hub_fixture.hpp"

// LeakSanitizer asks this at exit (scripts/sanitize-tests). ExitWritesWhatRunsStillBuffer's
// child exits with std::exit on purpose, skipping every destructor: what it holds is no leak.
static bool exiting_without_destructors = false;
extern "C" int __lsan_is_turned_off() { return exiting_without_destructors ? 1 : 0; }

namespace strata::hub::testing {
namespace {

// Runs `body` in a child process; returns its pid. The child exits 0 when body returns, 1 when
// it throws. It opens its own connections: none is shared across fork().
template <class F>
pid_t spawn(F&& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child %d: %s\n", ::getpid(), e.what());
      rc = 1;
    }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_P(HubTest, SaveKilledMidwayLeavesNoTrace) {
  { open().save_model("big", small_model(1)); }
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = spawn([&] {
    HubOptions options;
    options.chunk_bytes = 64 << 10;
    options.on_chunk_written = [&](int64_t chunk) {
      if (chunk == 3) {  // the blob half written: tell the parent, wait to die
        const char c = 'x';
        (void)!::write(ready[1], &c, 1);
        ::pause();
      }
    };
    Hub::open(url_, options).save_model("big", big_model(4 << 20));
  });
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::kill(child, SIGKILL);
  EXPECT_EQ(wait_exit_code(child), 128 + SIGKILL);
  ::close(ready[0]);
  ::close(ready[1]);

  Hub hub = open();
  const auto models = hub.list_models("big");
  ASSERT_EQ(models.size(), 1u);  // no half model
  EXPECT_EQ(models[0].version, 1);
  EXPECT_EQ(hub.store_size().blobs, 1);  // no orphan chunks either
  EXPECT_EQ(blob_files(), postgres() ? 0u : 1u);  // nor a half-written blob file (removed by open)
  const auto weights = big_model(1 << 20, 2);
  EXPECT_EQ(hub.save_model("big", weights), 2);  // no version burned
  expect_same_weights(hub.load_model("big").weights, weights);
}

TEST_P(HubTest, ConcurrentSavesGetDistinctVersions) {
  { open(); }  // the schema exists; the next test covers creating it concurrently
  const int processes = 3, saves = 6;
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p)
    children.push_back(spawn([&, p] {
      Hub hub = Hub::open(url_);
      for (int i = 0; i < saves; ++i) hub.save_model("shared", small_model(100 * p + i));
    }));
  for (pid_t pid : children) EXPECT_EQ(wait_exit_code(pid), 0);
  Hub hub = open();
  std::set<int64_t> versions;
  for (const auto& m : hub.list_models("shared", {.limit = 1000})) versions.insert(m.version);
  EXPECT_EQ(versions.size(), static_cast<size_t>(processes * saves));
  EXPECT_EQ(*versions.begin(), 1);
  EXPECT_EQ(*versions.rbegin(), processes * saves);
}

TEST_P(HubTest, ManyProcessesOpenAFreshHubAtOnce) {
  std::vector<pid_t> children;
  for (int p = 0; p < 6; ++p)
    children.push_back(spawn([&, p] {
      Hub hub = Hub::open(url_);
      hub.save_model("m" + std::to_string(p), small_model(p));
      hub::Run run = hub.create_run("r");
      run.log(0, Split::train, "loss", 1.0);
    }));
  for (pid_t pid : children) EXPECT_EQ(wait_exit_code(pid), 0);
  Hub hub = open();
  EXPECT_EQ(hub.list_models().size(), 6u);
  EXPECT_EQ(hub.list_runs().size(), 6u);
}

TEST_P(HubTest, ExitWritesWhatRunsStillBuffer) {
  int64_t run_id = 0;
  {
    Hub hub = open();
    run_id = hub.create_run("before").id() + 1;  // the child's run comes next
  }
  const pid_t child = spawn([&] {
    Hub hub = Hub::open(url_, {.flush_interval = std::chrono::milliseconds(0)});  // no timer
    hub::Run run = hub.create_run("exiting");
    run.log(1, Split::train, "loss", 0.5);
    run.event("last words");
    exiting_without_destructors = true;
    std::exit(0);  // no destructor runs: the at-exit handler writes the buffer
  });
  EXPECT_EQ(wait_exit_code(child), 0);
  Hub hub = open();
  ASSERT_EQ(hub.run_info(run_id)->name, "exiting");
  EXPECT_EQ(hub.metric_history(run_id, "loss", Split::train).size(), 1u);
  EXPECT_EQ(hub.events(run_id).size(), 1u);
}

TEST_P(HubTest, DeletingWhileAnotherConnectionLoadsDoesNotCrashIt) {
  {
    Hub hub = open();
    for (int i = 0; i < 20; ++i) hub.save_model("m", big_model(64 << 10, i));
  }
  std::atomic<bool> done{false};
  std::atomic<int> loaded{0}, refused{0};
  std::thread loader([&] {
    Hub hub = open({.cache_bytes = 0});
    while (!done) {
      try {
        hub.load_model("m");
        ++loaded;
      } catch (const Error& e) {
        ++refused;  // no version left: a clean error, not a crash
      }
    }
  });
  {
    Hub hub = open();
    for (int v = 1; v <= 20; ++v) hub.delete_model("m", v);
  }
  done = true;
  loader.join();
  EXPECT_GT(loaded + refused, 0);
}

}  // namespace
}  // namespace strata::hub::testing
