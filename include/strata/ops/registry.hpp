// Every differentiable op registers its name here, next to its definition. The conformance
// test (tests/ops/conformance_*.cpp) fails when a registered op has no entry in its table, so
// a new op is checked the day it lands.
#pragma once
#include <set>
#include <string>

namespace strata::ops {

void register_op(const char* name);
const std::set<std::string>& registered_ops();

struct OpRegistration {
  explicit OpRegistration(std::initializer_list<const char*> names) {
    for (const char* n : names) register_op(n);
  }
};

}  // namespace strata::ops

#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)
// STRATA_REGISTER_OPS("exp", "log", ...) at namespace scope in the op's source file.
#define STRATA_REGISTER_OPS(...) \
  static const ::strata::ops::OpRegistration STRATA_CONCAT(strata_ops_, __LINE__){__VA_ARGS__}
