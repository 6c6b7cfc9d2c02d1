// Shared by the JSON, plan and model-file regression tests: a SQLite hub in a fresh temporary
// folder, removed afterwards; a limit lowered or raised for one test; and the `strata` binary run
// on that hub, with its exit status and output.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "strata/core/limits.hpp"

namespace strata::reliability {

// Sets one field of limits() for the life of this object.
class ScopedLimit {
 public:
  ScopedLimit(std::uint64_t Limits::*field, std::uint64_t value) : field_(field), saved_(limits().*field) {
    limits().*field = value;
  }
  ~ScopedLimit() { limits().*field_ = saved_; }

 private:
  std::uint64_t Limits::*field_;
  std::uint64_t saved_;
};

struct CliResult {
  int status = -1;  // the exit status; -1 when the process died of a signal
  std::string out, err;
};

class TempHub : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("strata_rel_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    url_ = (dir_ / "hub.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write_file(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Runs `strata <args> --hub <this hub>`.
  CliResult strata(const std::string& args) const {
    const std::string err_path = (dir_ / "stderr.txt").string();
    const std::string cmd = std::string("'") + STRATA_CLI_PATH + "' " + args + " --hub '" + url_ + "' 2>'" + err_path + "'";
    CliResult r;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    char buf[4096];
    for (size_t n; pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
    const int status = pipe ? ::pclose(pipe) : -1;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream err(err_path);
    r.err.assign(std::istreambuf_iterator<char>(err), {});
    return r;
  }

  std::filesystem::path dir_;
  std::string url_;
};

}  // namespace strata::reliability
