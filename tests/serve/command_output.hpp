// What a shell command prints on stdout, for the tests that drive independent clients (curl,
// tritonclient); empty when it cannot run or exits non-zero.
#pragma once
#include <cstdio>
#include <string>

namespace strata::testing {

inline std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  return ::pclose(pipe) == 0 ? out : std::string();
}

}  // namespace strata::testing
