// The Python of the tests' virtual environment, cached outside the clone
// (~/.cache/strata-test-venv) for PyPI packages that are test tools, never library dependencies
// (tritonclient, tensorboard). Empty when `imports` cannot be made to import (pip offline):
// callers skip, saying why.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

namespace strata::testing {

// `imports`: a Python import list ("tensorboard, PIL"); `packages`: pip arguments installing them.
inline std::string test_venv_python(const std::string& imports, const std::string& packages) {
  const char* home = std::getenv("HOME");
  const auto venv = std::filesystem::path(home != nullptr ? home : "/tmp") / ".cache" / "strata-test-venv";
  const std::string python = (venv / "bin" / "python").string();
  const std::string probe = "'" + python + "' -c 'import " + imports + "' 2>/dev/null";
  if (std::system(probe.c_str()) == 0) return python;
  const std::string venv_made = std::filesystem::exists(python) ? "true" : "/usr/bin/python3 -m venv '" + venv.string() + "'";
  const std::string install = venv_made + " && '" + python +
                              "' -m pip install -q --disable-pip-version-check --timeout 30 " + packages;
  return std::system(install.c_str()) == 0 && std::system(probe.c_str()) == 0 ? python : "";
}

}  // namespace strata::testing
