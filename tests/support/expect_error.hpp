// Shared by the tests: runs fn and checks that it throws strata::Error whose message mentions
// every one of `parts` (the op or layer, the shapes, the bad value...).
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::testing {

inline void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected strata::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

}  // namespace strata::testing
