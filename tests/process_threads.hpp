// How many threads a process has now, from /proc/<pid>/status (-1 if it cannot be read): the tests
// that check no OpenMP team appears where none should count them.
#pragma once
#include <sys/types.h>

#include <fstream>
#include <string>

namespace strata::testing {

inline int process_thread_count(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

}  // namespace strata::testing
