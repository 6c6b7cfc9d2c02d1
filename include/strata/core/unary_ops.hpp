// The unary element-wise ops, one line each, with their formulas. Everything else that knows them
// is generated from this list: dispatch::UnaryOp and unary_name (dispatch/elementwise.hpp), the
// CPU's and CUDA's kernels (src/dispatch/unary_formulas.hpp turns the formula column into
// functions), the op table's unary family (ops/registry.hpp), the declarations of the public
// functions that take a tensor alone (ops/elementwise.hpp), and through strata::unary_functions()
// the activation names (nn::Activation) and the ONNX operators (src/onnx). It lives in core
// because those modules all see core, and nn and onnx see nothing of dispatch. Adding an op:
// docs/architecture.md, "Add a unary op".
//
// X(ctx, op, name, dtypes, backward, api, onnx, formula), ctx being what the expansion passed:
//   op        the C++ name: dispatch::UnaryOp::op, ops::Op::op, and strata::op for api fn and act
//   name      as errors and op records show it: op, or op less a "_scalar" suffix (checked where
//             unary_name is made, so that a name moved to another line does not compile)
//   dtypes    floats (float32, float64) | numbers (the integer dtypes too) | logical (any dtype,
//             bool included; gives bool)
//   backward  the op table's BackwardOrder: any | first; none: no gradient, not in the table
//   api       fn: `Tensor op(const Tensor& x)`, declared from this list | act: that, and an
//             activation name (nn::Dense(8, "gelu")) | params: takes parameters a (and b) and is
//             declared by hand in ops/elementwise.hpp | act_params: that, and an activation at
//             its parameters' defaults
//   onnx      the ONNX operator that computes the op (with ONNX's default attributes and the op's
//             default parameters): the import reads it as the op and the export of an activation
//             writes it; "" where the ONNX code has none (or composes it: gelu, mish, ...)
//   formula   y from the element v of type T and the parameters a, b (of type T), with the
//             backend's math M::exp, M::log, ... (src/dispatch/unary_formulas.hpp, StdMath) and
//             negative(v), clip(v, lo, hi); written for every dtype the op takes (T(...) keeps
//             an integer result in T)
// Only /* */ comments inside the list: a // comment would swallow the lines after it.
#pragma once
// clang-format off
#define STRATA_UNARY_OP_LIST(X, ctx)                                                                         \
  X(ctx, neg,          "neg",          numbers, any,  fn,         "Neg",      T(-v))                         \
  X(ctx, abs,          "abs",          numbers, any,  fn,         "Abs",      negative(v) ? T(-v) : v)       \
  X(ctx, exp,          "exp",          floats,  any,  fn,         "Exp",      M::exp(v))                     \
  X(ctx, log,          "log",          floats,  any,  fn,         "Log",      M::log(v))                     \
  X(ctx, log1p,        "log1p",        floats,  any,  fn,         "",         M::log1p(v))                   \
  X(ctx, expm1,        "expm1",        floats,  any,  fn,         "",         M::expm1(v))                   \
  X(ctx, sqrt,         "sqrt",         floats,  any,  fn,         "Sqrt",     M::sqrt(v))                    \
  X(ctx, rsqrt,        "rsqrt",        floats,  any,  fn,         "",         T(1) / M::sqrt(v))             \
  X(ctx, square,       "square",       numbers, any,  fn,         "",         T(v * v))                      \
  X(ctx, reciprocal,   "reciprocal",   floats,  any,  fn,         "Reciprocal", T(1) / v)                    \
  X(ctx, sin,          "sin",          floats,  any,  fn,         "Sin",      M::sin(v))                     \
  X(ctx, cos,          "cos",          floats,  any,  fn,         "Cos",      M::cos(v))                     \
  X(ctx, asin,         "asin",         floats,  any,  fn,         "Asin",     M::asin(v))                    \
  X(ctx, acos,         "acos",         floats,  any,  fn,         "Acos",     M::acos(v))                    \
  X(ctx, atan,         "atan",         floats,  any,  fn,         "Atan",     M::atan(v))                    \
  X(ctx, erf,          "erf",          floats,  any,  fn,         "Erf",      M::erf(v))                     \
  X(ctx, tanh,         "tanh",         floats,  any,  act,        "Tanh",     M::tanh(v))                    \
  X(ctx, sigmoid,      "sigmoid",      floats,  any,  act,        "Sigmoid",  M::sigmoid(v))                 \
  X(ctx, relu,         "relu",         numbers, any,  act,        "Relu",     v > 0 ? v : T(0))              \
  X(ctx, relu6,        "relu6",        floats,  any,  act,        "",         clip(v, T(0), T(6)))           \
  /* a = slope (nn reads "lrelu0.2" and "leaky_relu0.2" itself) */                                         \
  X(ctx, leaky_relu,   "leaky_relu",   floats,  any,  params,     "",         v > 0 ? v : a * v)             \
  /* a = alpha, 1 by default as ONNX's Elu */                                                              \
  X(ctx, elu,          "elu",          floats,  any,  act_params, "Elu",      v > 0 ? v : a * (M::exp(v) - T(1))) \
  /* ONNX's Selu has SELU's constants by default */                                                        \
  X(ctx, selu,         "selu",         floats,  any,  act,        "Selu",                                    \
    T(1.0507009873554805) * (v > 0 ? v : T(1.6732632423543772) * (M::exp(v) - T(1))))                       \
  /* the exact (erf) form, PyTorch's default; ONNX's Gelu is opset 20, exported as Erf and arithmetic */    \
  X(ctx, gelu,         "gelu",         floats,  any,  act,        "",                                        \
    T(0.5) * v * (T(1) + M::erf(v * T(0.70710678118654752))))                                              \
  X(ctx, softplus,     "softplus",     floats,  any,  act,        "Softplus", M::softplus(v))                \
  X(ctx, softsign,     "softsign",     floats,  any,  act,        "Softsign", v / (T(1) + (negative(v) ? -v : v))) \
  X(ctx, silu,         "silu",         floats,  any,  act,        "",         v * M::sigmoid(v))             \
  X(ctx, mish,         "mish",         floats,  any,  act,        "",         v * M::tanh(M::softplus(v)))   \
  /* PyTorch's: relu6(x + 3) / 6 */                                                                        \
  X(ctx, hard_sigmoid, "hard_sigmoid", floats,  any,  act,        "",         clip(T((v + 3) / 6), T(0), T(1))) \
  X(ctx, hard_tanh,    "hard_tanh",    floats,  any,  act,        "",         clip(v, T(-1), T(1)))          \
  /* sign, floor, ceil and round have a zero gradient */                                                   \
  X(ctx, sign,         "sign",         numbers, any,  fn,         "Sign",     T((v > 0) - negative(v)))      \
  X(ctx, floor,        "floor",        floats,  any,  fn,         "Floor",    M::floor(v))                   \
  X(ctx, ceil,         "ceil",         floats,  any,  fn,         "Ceil",     M::ceil(v))                    \
  /* halves to even, as NumPy */                                                                           \
  X(ctx, round,        "round",        floats,  any,  fn,         "Round",    M::nearbyint(v))               \
  /* a = low, b = high */                                                                                  \
  X(ctx, clamp,        "clamp",        numbers, any,  params,     "",         clip(v, a, b))                 \
  X(ctx, logical_not,  "logical_not",  logical, none, fn,         "",         v == T(0))                     \
  /* a = exponent; strata::pow(x, exponent) */                                                             \
  X(ctx, pow_scalar,   "pow",          floats,  any,  params,     "",         M::pow(v, a))
// clang-format on
