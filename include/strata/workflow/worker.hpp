// Worker: an in-process agent that leases tasks from a hub's queue, runs their registered
// functions on `concurrency` threads, renews the leases from a heartbeat thread, and commits
// each result (or failure) fenced by its attempt. A broken database connection is reopened
// with back-off; stop() lets the running tasks finish and commit, then run() returns.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/hub/hub.hpp"
#include "strata/workflow/registry.hpp"

namespace strata::workflow {

struct WorkerOptions {
  std::string id{};                    // empty: "<host>:<pid>:<n>"; recorded on its tasks
  std::vector<std::string> tags{};     // leases only tasks whose required tags are all here
  int concurrency = 1;                 // tasks run at once (one thread, connection and share of the cores each)
  double lease_seconds = 30;           // renewed every lease_seconds / 3 while a task runs
  double max_idle_poll_seconds = 0.1;  // idle polling backs off from 1 ms to this
  double max_reconnect_seconds = 5;    // reconnecting backs off from 50 ms to this
  // run() returns once no task it could run is left, now or after a retry delay, and none of
  // its slots holds one (whose failure could bring it back).
  bool exit_when_idle = false;
  // Events, one line each: "succeeded task=12 attempt=1", "refused task=12 attempt=1 ...",
  // "failed task=...", "retrying task=...", "reconnecting: ...". Called from worker threads.
  std::function<void(const std::string&)> on_event{};
};

struct WorkerStats {
  int64_t succeeded = 0;  // results committed
  int64_t failed = 0;     // failed attempts committed (to be retried or failed for good)
  int64_t refused = 0;    // commits refused: the lease had been taken away
  int64_t reconnects = 0;
};

class Worker {
 public:
  // The registry must outlive the worker. Opens its connections in run().
  Worker(std::string hub_url, const TaskRegistry& registry, WorkerOptions options = {},
         hub::HubOptions hub_options = {});
  ~Worker();  // stop() and join()
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Blocks until stop() (or idle, with exit_when_idle). Throws strata::Error, having stopped the
  // slots it made, when the system gives fewer threads than options.concurrency.
  void run();
  void start();  // run() on a background thread
  void stop();   // asks to stop; safe from any thread (not from a signal handler)
  void join();   // waits for a start()ed worker; rethrows what ended its run()
  const std::string& id() const;
  WorkerStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::workflow
