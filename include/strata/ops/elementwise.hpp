// Element-wise ops: unary maps, binary maps with NumPy broadcasting and type promotion,
// comparisons, where, and in-place updates (for optimizers, under NoGradGuard).
#pragma once
#include <span>

#include "strata/core/tensor.hpp"
#include "strata/core/unary_ops.hpp"

namespace strata {

// Unary: the ops of the list in strata/core/unary_ops.hpp, which gives each one's dtypes
// (float32/float64, or the integer dtypes too), formula and notes (gelu is the exact erf form;
// sign, floor, ceil and round have a zero gradient; logical_not gives bool). Those that take a
// tensor alone are declared from the list, `Tensor op(const Tensor& x)`: exp(x), sigmoid(x),
// erf(x), logical_not(x), ...; those with parameters follow it.
#define STRATA_DECLARE_UNARY(ctx, op, name, dtypes, backward, api, ...) STRATA_DECLARE_UNARY_##api(op)
#define STRATA_DECLARE_UNARY_fn(op) Tensor op(const Tensor& x);
#define STRATA_DECLARE_UNARY_act(op) Tensor op(const Tensor& x);
#define STRATA_DECLARE_UNARY_params(op)
#define STRATA_DECLARE_UNARY_act_params(op)
STRATA_UNARY_OP_LIST(STRATA_DECLARE_UNARY, )
#undef STRATA_DECLARE_UNARY
#undef STRATA_DECLARE_UNARY_fn
#undef STRATA_DECLARE_UNARY_act
#undef STRATA_DECLARE_UNARY_params
#undef STRATA_DECLARE_UNARY_act_params
Tensor leaky_relu(const Tensor& x, double slope = 0.2);  // TensorLayer's default slope
Tensor elu(const Tensor& x, double alpha = 1.0);
Tensor clamp(const Tensor& x, double low, double high);
Tensor pow(const Tensor& x, double exponent);
inline Tensor swish(const Tensor& x) { return silu(x); }

// The unary ops of the list that take a tensor alone (or whose parameters have defaults), by
// name, with what nn and onnx derive from the list: nn::Activation's names, the ONNX operators.
struct UnaryFunction {
  const char* name;               // "gelu", as errors and nn::Activation spell it
  Tensor (*fn)(const Tensor& x);  // strata::gelu
  bool activation;                // also an activation name: nn::Dense(8, "gelu")
  bool defaults;                  // fn applies the op's parameters' defaults (elu: alpha 1)
  const char* onnx;               // the ONNX operator that computes fn, or ""
};
std::span<const UnaryFunction> unary_functions();

// Binary, broadcasting.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// Comparisons and logic produce bool tensors and carry no gradient.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
// cond ? a : b (cond is bool or converted to bool), broadcasting all three.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// Casts (differentiable between float dtypes).
Tensor cast(const Tensor& x, DType dtype);
// A copy of x on `device` (x itself when already there); its gradient goes back to x's device.
Tensor to_device(const Tensor& x, Device device);

Tensor operator-(const Tensor& x);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
// A scalar operand takes the tensor's dtype (x * 2.0 stays float32).
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, double b);
Tensor operator<(const Tensor& a, double b);

// In place, no autograd history (use under NoGradGuard on tensors that require grad).
Tensor& add_(Tensor& a, const Tensor& b, double alpha = 1.0);  // a += alpha * b
Tensor& sub_(Tensor& a, const Tensor& b);
Tensor& mul_(Tensor& a, const Tensor& b);
Tensor& mul_(Tensor& a, double b);
Tensor& div_(Tensor& a, const Tensor& b);
Tensor& copy_(Tensor& dst, const Tensor& src);  // broadcasts and converts src
Tensor& fill_(Tensor& t, double value);
Tensor& zero_(Tensor& t);

// True when every element of a and b (same shape) differ by at most atol + rtol * |b|.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace strata
