// Unary element-wise ops: each forward is one kernel; its gradient formula sits beside it.
#include <cmath>

#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using dispatch::UnaryOp;
using ops::Grads;

// grad(g, x, y) -> dL/dx, given the output gradient g, the input x and the output y.
template <class GradFn>
Tensor unary_op(const char* name, UnaryOp op, const Tensor& x, GradFn grad, double a = 0, double b = 0) {
  ops::check_defined(x, name);
  Tensor y = dispatch::unary(op, x, a, b);
  if (autograd::needs_grad({&x}))
    autograd::record(name, {x}, {y}, [x, y = autograd::saved(y), grad](const Grads& g) {
      return Grads{grad(g[0], x, y)};
    });
  return y;
}

Tensor mask_of(const Tensor& cond, const Tensor& like) { return cast(cond, like.dtype()); }
Tensor no_grad(const Tensor& g, const Tensor&, const Tensor&) { return zeros_like(g); }

}  // namespace

STRATA_REGISTER_OPS("neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "square", "reciprocal", "sin",
                    "cos", "tanh", "sigmoid", "relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus",
                    "softsign", "silu", "mish", "hard_sigmoid", "hard_tanh", "sign", "floor", "ceil", "round",
                    "clamp", "pow_scalar");

Tensor neg(const Tensor& x) {
  return unary_op("neg", UnaryOp::neg, x, [](const Tensor& g, const Tensor&, const Tensor&) { return -g; });
}
Tensor abs(const Tensor& x) {
  return unary_op("abs", UnaryOp::abs, x, [](const Tensor& g, const Tensor& x, const Tensor&) { return g * sign(x); });
}
Tensor exp(const Tensor& x) {
  return unary_op("exp", UnaryOp::exp, x, [](const Tensor& g, const Tensor&, const Tensor& y) { return g * y; });
}
Tensor log(const Tensor& x) {
  return unary_op("log", UnaryOp::log, x, [](const Tensor& g, const Tensor& x, const Tensor&) { return g / x; });
}
Tensor log1p(const Tensor& x) {
  return unary_op("log1p", UnaryOp::log1p, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g / (x + 1.0); });
}
Tensor expm1(const Tensor& x) {
  return unary_op("expm1", UnaryOp::expm1, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * (y + 1.0); });
}
Tensor sqrt(const Tensor& x) {
  return unary_op("sqrt", UnaryOp::sqrt, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * 0.5 / y; });
}
Tensor rsqrt(const Tensor& x) {
  return unary_op("rsqrt", UnaryOp::rsqrt, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * -0.5 * y * y * y; });
}
Tensor square(const Tensor& x) {
  return unary_op("square", UnaryOp::square, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * 2.0 * x; });
}
Tensor reciprocal(const Tensor& x) {
  return unary_op("reciprocal", UnaryOp::reciprocal, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return -g * y * y; });
}
Tensor sin(const Tensor& x) {
  return unary_op("sin", UnaryOp::sin, x, [](const Tensor& g, const Tensor& x, const Tensor&) { return g * cos(x); });
}
Tensor cos(const Tensor& x) {
  return unary_op("cos", UnaryOp::cos, x, [](const Tensor& g, const Tensor& x, const Tensor&) { return -g * sin(x); });
}
Tensor tanh(const Tensor& x) {
  return unary_op("tanh", UnaryOp::tanh, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    return dispatch::binary(dispatch::BinaryOp::tanh_backward, g, y);
  });
}
Tensor sigmoid(const Tensor& x) {
  return unary_op("sigmoid", UnaryOp::sigmoid, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    return dispatch::binary(dispatch::BinaryOp::sigmoid_backward, g, y);
  });
}
Tensor relu(const Tensor& x) {
  return unary_op("relu", UnaryOp::relu, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    return dispatch::binary(dispatch::BinaryOp::relu_backward, g, y);
  });
}
Tensor relu6(const Tensor& x) {
  return unary_op("relu6", UnaryOp::relu6, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    return g * mask_of(logical_and(x > 0.0, x < 6.0), g);
  });
}
Tensor leaky_relu(const Tensor& x, double slope) {
  return unary_op(
      "leaky_relu", UnaryOp::leaky_relu, x,
      [slope](const Tensor& g, const Tensor& x, const Tensor&) { return where(x > 0.0, g, g * slope); }, slope);
}
Tensor elu(const Tensor& x, double alpha) {
  return unary_op(
      "elu", UnaryOp::elu, x,
      [alpha](const Tensor& g, const Tensor& x, const Tensor& y) { return where(x > 0.0, g, g * (y + alpha)); },
      alpha);
}
Tensor selu(const Tensor& x) {
  return unary_op("selu", UnaryOp::selu, x, [](const Tensor& g, const Tensor& x, const Tensor& y) {
    const double alpha = 1.6732632423543772, scale = 1.0507009873554805;
    return where(x > 0.0, g * scale, g * (y + scale * alpha));
  });
}
Tensor gelu(const Tensor& x) {
  return unary_op("gelu", UnaryOp::gelu, x, [](const Tensor& g, const Tensor& x, const Tensor& y) {
    // d/dx x·Φ(x) = Φ(x) + x·φ(x); Φ(x) = y / x away from 0, and 1/2 at 0.
    Tensor phi = exp(square(x) * -0.5) * 0.3989422804014327;
    Tensor big_phi = where(abs(x) > 1e-6, y / where(abs(x) > 1e-6, x, ones_like(x)), full_like(x, 0.5));
    return g * (big_phi + x * phi);
  });
}
Tensor softplus(const Tensor& x) {
  return unary_op("softplus", UnaryOp::softplus, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * sigmoid(x); });
}
Tensor softsign(const Tensor& x) {
  return unary_op("softsign", UnaryOp::softsign, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g / square(abs(x) + 1.0); });
}
Tensor silu(const Tensor& x) {
  return unary_op("silu", UnaryOp::silu, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    Tensor s = sigmoid(x);
    return g * s * (x * (1.0 - s) + 1.0);
  });
}
Tensor mish(const Tensor& x) {
  return unary_op("mish", UnaryOp::mish, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    Tensor t = tanh(softplus(x));
    return g * (t + x * (1.0 - t * t) * sigmoid(x));
  });
}
Tensor hard_sigmoid(const Tensor& x) {
  return unary_op("hard_sigmoid", UnaryOp::hard_sigmoid, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    return g * mask_of(logical_and(x > -3.0, x < 3.0), g) / 6.0;
  });
}
Tensor hard_tanh(const Tensor& x) {
  return unary_op("hard_tanh", UnaryOp::hard_tanh, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    return g * mask_of(logical_and(x > -1.0, x < 1.0), g);
  });
}
Tensor sign(const Tensor& x) { return unary_op("sign", UnaryOp::sign, x, no_grad); }
Tensor floor(const Tensor& x) { return unary_op("floor", UnaryOp::floor, x, no_grad); }
Tensor ceil(const Tensor& x) { return unary_op("ceil", UnaryOp::ceil, x, no_grad); }
Tensor round(const Tensor& x) { return unary_op("round", UnaryOp::round, x, no_grad); }
Tensor clamp(const Tensor& x, double low, double high) {
  STRATA_CHECK(low <= high, "clamp: low (", low, ") is greater than high (", high, ")");
  return unary_op(
      "clamp", UnaryOp::clamp, x,
      [low, high](const Tensor& g, const Tensor& x, const Tensor&) {
        return g * mask_of(logical_and(x >= full_like(x, low), x <= full_like(x, high)), g);
      },
      low, high);
}
Tensor pow(const Tensor& x, double exponent) {
  return unary_op(
      "pow_scalar", UnaryOp::pow_scalar, x,
      [exponent](const Tensor& g, const Tensor& x, const Tensor&) { return g * exponent * pow(x, exponent - 1); },
      exponent);
}
Tensor logical_not(const Tensor& x) { return dispatch::unary(UnaryOp::logical_not, x, 0, 0); }

}  // namespace strata
