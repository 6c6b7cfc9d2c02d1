// Running a Python script of tests/ that writes or checks fixtures at test time.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace strata::testing {

// The exit status of `python3 tests/<script> <args>` (-1 if it did not run); by the tests'
// convention 77 means numpy or h5py is missing. Debian's python3 has python3-numpy and
// python3-h5py (scripts/install-deps); a python3 earlier on PATH (pyenv, venv) may lack them.
inline int run_python_script(const std::string& script, const std::string& args) {
  const std::string python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  const auto path = std::filesystem::path(STRATA_TESTS_DIR) / script;
  const int rc = std::system((python + " '" + path.string() + "' " + args).c_str());
  return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace strata::testing
