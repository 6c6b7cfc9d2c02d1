// The names of the element-wise operations, as errors and op records show them.
#include "strata/dispatch/elementwise.hpp"

#include <iterator>

namespace strata::dispatch {

const char* unary_name(UnaryOp op) {
  static const char* names[] = {"neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "square",
                                "reciprocal", "sin", "cos", "tanh", "sigmoid", "relu", "relu6", "leaky_relu",
                                "elu", "selu", "gelu", "softplus", "softsign", "silu", "mish", "hard_sigmoid",
                                "hard_tanh", "sign", "floor", "ceil", "round", "clamp", "logical_not", "pow"};
  static_assert(std::size(names) == static_cast<size_t>(UnaryOp::pow_scalar) + 1, "a name per UnaryOp");
  return names[static_cast<int>(op)];
}

const char* binary_name(BinaryOp op) {
  static const char* names[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le",
                                "gt", "ge", "logical_and", "logical_or", "relu_backward", "sigmoid_backward",
                                "tanh_backward"};
  static_assert(std::size(names) == static_cast<size_t>(BinaryOp::tanh_backward) + 1, "a name per BinaryOp");
  return names[static_cast<int>(op)];
}

bool is_comparison(BinaryOp op) { return op >= BinaryOp::eq && op <= BinaryOp::logical_or; }

}  // namespace strata::dispatch
