// Shared by the readers_*.cpp tests: files written from bytes built in the test, and a limit
// lowered for one test (restored after it, whatever the test does).
#pragma once
#include <cstdint>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"
#include "strata/core/limits.hpp"

namespace strata::testing {

class ReadersTest : public TempDirTest {
 protected:
  void TearDown() override {
    limits() = saved_;
    TempDirTest::TearDown();
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string file = path(name);
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return file;
  }

 private:
  Limits saved_ = limits();
};

// Checks that fn throws LimitError naming `limit` (a Limits field) and `source`.
template <class Fn>
void expect_limit_error(Fn&& fn, const std::string& limit, const std::string& source) {
  try {
    fn();
    ADD_FAILURE() << "expected a LimitError naming " << limit;
  } catch (const LimitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(limit), std::string::npos) << what;
    EXPECT_NE(what.find(source), std::string::npos) << what;
  }
}

}  // namespace strata::testing
