// How many threads a process has now, from /proc/<pid>/status (-1 if it cannot be read): the tests
// that check no OpenMP team appears where none should count them. And how often its threads
// have gone to sleep so far: the tests that check an idle server stays asleep count them.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace strata::testing {

inline int process_thread_count(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

// The voluntary context switches of all the process's threads so far (each wait that slept).
inline int64_t process_voluntary_switches(pid_t pid) {
  int64_t total = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) total += std::stoll(line.substr(24));
  }
  return total;
}

}  // namespace strata::testing
