// Element-wise ops: unary maps, binary maps with NumPy broadcasting and type promotion,
// comparisons, where, and in-place updates (for optimizers, under NoGradGuard).
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

// Unary (float tensors; neg/abs/sign/square/relu/clamp also take integers).
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor relu6(const Tensor& x);
Tensor leaky_relu(const Tensor& x, double slope = 0.2);  // TensorLayer's default slope
Tensor elu(const Tensor& x, double alpha = 1.0);
Tensor selu(const Tensor& x);
Tensor gelu(const Tensor& x);  // exact (erf) form, as PyTorch's default
Tensor softplus(const Tensor& x);
Tensor softsign(const Tensor& x);
Tensor silu(const Tensor& x);
inline Tensor swish(const Tensor& x) { return silu(x); }
Tensor mish(const Tensor& x);
Tensor hard_sigmoid(const Tensor& x);  // relu6(x + 3) / 6
Tensor hard_tanh(const Tensor& x);
Tensor sign(const Tensor& x);   // no gradient (zero)
Tensor floor(const Tensor& x);  // no gradient
Tensor ceil(const Tensor& x);   // no gradient
Tensor round(const Tensor& x);  // no gradient; halves to even
Tensor clamp(const Tensor& x, double low, double high);
Tensor pow(const Tensor& x, double exponent);

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
Tensor logical_not(const Tensor& x);
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
