// Walks a fault through every file system call of an operation (issue 43.2): the operation is
// run once to count its calls under the store's folder, then once per call with that call
// failed, the faults taking turns (ENOSPC, EIO, EDQUOT, a short write). After each run the
// check sees whether the operation threw (it must be a strata::Error naming what failed, never
// another exception or a crash) and inspects the store with the faults off.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "faults/syscall_faults.hpp"
#include "strata/core/error.hpp"

namespace strata::testing {

struct WalkStep {
  int64_t n = 0;                // the call that failed
  faults::Fault fault{};        // how
  std::string call;             // which ("fsync hub.db-wal"), empty if it never came
  bool threw = false;           // the operation ended in an error
  std::string error;            // its message
};

// The names of the files in `folder` (none if it does not exist).
inline std::set<std::string> files_in(const std::filesystem::path& folder) {
  std::set<std::string> names;
  if (std::filesystem::exists(folder))
    for (const auto& e : std::filesystem::directory_iterator(folder)) names.insert(e.path().filename().string());
  return names;
}

// Where the faults go: the files under `folder`, or (port > 0) the connections to a server.
struct FaultTarget {
  std::string folder;
  int port = 0;
};

// The port of a postgresql://user@host:PORT/db URL.
inline int postgres_port(const std::string& url) {
  const size_t colon = url.find(':', url.find('@'));
  return std::stoi(url.substr(colon + 1));
}

// Returns how many calls the operation made when nothing failed.
inline int64_t walk_faults(const FaultTarget& target, const std::function<void()>& operation,
                           const std::function<void(const WalkStep&)>& check) {
  const auto arm = [&](int64_t n, faults::Fault fault) {
    if (target.port > 0) faults::arm_connections(target.port, n);
    else faults::arm(target.folder, n, fault);
  };
  arm(0, faults::Fault::io_error);
  operation();
  const int64_t total = faults::calls();
  faults::disarm();
  check({});
  const std::vector<faults::Fault> kinds =
      target.port > 0 ? std::vector{faults::Fault::dropped_connection}
                      : std::vector{faults::Fault::no_space, faults::Fault::io_error, faults::Fault::quota,
                                    faults::Fault::short_write};
  for (int64_t n = 1; n <= total; ++n) {
    WalkStep step{.n = n, .fault = kinds[static_cast<size_t>(n - 1) % kinds.size()]};
    arm(n, step.fault);
    try {
      operation();
    } catch (const Error& e) {
      step.threw = true;
      step.error = e.what();
    } catch (const std::exception& e) {
      faults::disarm();
      ADD_FAILURE() << "call " << n << " (" << faults::fired() << ", " << faults::fault_name(step.fault)
                    << ") ended in an exception that is not a strata::Error: " << e.what();
      continue;
    }
    step.call = faults::fired();
    faults::disarm();
    SCOPED_TRACE("call " + std::to_string(n) + " of " + std::to_string(total) + ": " + step.call + " failed with " +
                 faults::fault_name(step.fault) + (step.threw ? ", error: " + step.error : ", no error"));
    // A failed write, sync or rename that goes unreported would lose data silently; a short write
    // is not a failure (the writer must go on), and neither is a failed mmap of a reader that can
    // read instead, or a dropped connection that the hub made again and went on with.
    if (!step.call.empty() && step.fault != faults::Fault::short_write && target.port == 0 &&
        step.call.rfind("mmap", 0) != 0 &&
        step.call.rfind("open", 0) != 0 && step.call.rfind("fopen", 0) != 0)
      EXPECT_TRUE(step.threw) << "the failure was not reported";
    check(step);
  }
  return total;
}

}  // namespace strata::testing
