// The names of the element-wise operations, as errors and op records show them, from their lists
// (core/unary_ops.hpp, dispatch/elementwise.hpp).
#include "strata/dispatch/elementwise.hpp"

namespace strata::dispatch {
namespace {

constexpr bool same(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

// A unary op's name is its C++ name, or that less a "_scalar" suffix (pow_scalar is "pow").
constexpr bool names_match(const char* cpp, const char* name) {
  while (*name && *cpp == *name) ++cpp, ++name;
  return !*name && (!*cpp || same(cpp, "_scalar"));
}
static_assert(names_match("pow_scalar", "pow") && names_match("exp", "exp") && !names_match("exp", "log") &&
              !names_match("expm1", "exp") && !names_match("exp", "expm1"));

// An entry whose name is another op's (two names swapped, a line pasted and half edited) stops here.
#define STRATA_UNARY_NAME_CHECK(ctx, op, name, ...) \
  static_assert(names_match(#op, name), "UnaryOp::" #op " is named \"" name "\": not its own name");
STRATA_UNARY_OP_LIST(STRATA_UNARY_NAME_CHECK, )
#undef STRATA_UNARY_NAME_CHECK

}  // namespace

const char* unary_name(UnaryOp op) {
  switch (op) {
#define STRATA_UNARY_NAME(ctx, op, name, ...) \
  case UnaryOp::op:                           \
    return name;
    STRATA_UNARY_OP_LIST(STRATA_UNARY_NAME, )
#undef STRATA_UNARY_NAME
  }
  return "unary";
}

const char* binary_name(BinaryOp op) {
  switch (op) {
#define STRATA_BINARY_NAME(op, kind) \
  case BinaryOp::op:                 \
    return #op;
    STRATA_BINARY_OP_LIST(STRATA_BINARY_NAME)
#undef STRATA_BINARY_NAME
  }
  return "binary";
}

bool is_comparison(BinaryOp op) {
  switch (op) {
#define STRATA_BINARY_IS_COMPARISON(op, kind) \
  case BinaryOp::op:                          \
    return same(#kind, "compare");
    STRATA_BINARY_OP_LIST(STRATA_BINARY_IS_COMPARISON)
#undef STRATA_BINARY_IS_COMPARISON
  }
  return false;
}

}  // namespace strata::dispatch
