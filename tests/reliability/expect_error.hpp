// The reliability tests' check that a call is refused with a strata::Error whose message holds
// `part` (the row, the file or the limit it must name).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "strata/core/error.hpp"

namespace strata::testing {

template <class Call>
void expect_error_naming(Call&& call, const std::string& part) {
  try {
    call();
    ADD_FAILURE() << "expected a strata::Error naming " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace strata::testing
