// The documented limits (core/limits.hpp): each refusal names the limit, the value and the source.
#include <gtest/gtest.h>

#include <string>

#include "strata/core/limits.hpp"

namespace strata {
namespace {

TEST(Limits, CheckLimitNamesTheLimitTheValueAndTheEnvironmentVariable) {
  EXPECT_NO_THROW(check_limit("w.safetensors", "tensor bytes", 100, "max_tensor_bytes", 100));
  try {
    check_limit("w.safetensors", "tensor bytes", 101, "max_tensor_bytes", 100);
    FAIL() << "expected a LimitError";
  } catch (const LimitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("w.safetensors"), std::string::npos) << what;
    EXPECT_NE(what.find("101"), std::string::npos) << what;
    EXPECT_NE(what.find("max_tensor_bytes = 100"), std::string::npos) << what;
    EXPECT_NE(what.find("STRATA_MAX_TENSOR_BYTES"), std::string::npos) << what;
  }
}

TEST(Limits, JsonDepthCountsBracketsOutsideStringsOnly) {
  const std::uint64_t saved = limits().max_json_depth;
  limits().max_json_depth = 3;
  EXPECT_NO_THROW(check_json_depth(R"({"a": [[1]]})", "params"));
  EXPECT_NO_THROW(check_json_depth(R"({"a": "[[[[[[\"[[[["})", "params"));  // brackets in a string
  EXPECT_THROW(check_json_depth(R"({"a": [[[1]]]})", "params"), LimitError);
  EXPECT_NO_THROW(check_json_depth(R"([[1]], [[2]], [[3]])", "params"));  // depth resets
  limits().max_json_depth = saved;
}

TEST(Limits, DeepJsonIsRefusedWithoutRecursion) {
  const std::string deep(200'000, '[');  // the task params that killed every worker (issue 13.3)
  EXPECT_THROW(check_json_depth(deep, "task params"), LimitError);
}

}  // namespace
}  // namespace strata
