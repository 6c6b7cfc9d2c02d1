// Unary element-wise ops: each forward is one kernel; its gradient formula sits beside it.
#include <cmath>

#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using dispatch::BinaryOp;
using dispatch::UnaryOp;
using ops::Grads;
using ops::Op;

// What a gradient formula reads besides the output gradient; the node keeps only that alive.
enum class Reads { nothing, input, output, both };

// grad(g, x, y) -> dL/dx, given the output gradient g and, where `reads` says so, the input x
// and the output y (undefined otherwise).
template <class GradFn>
Tensor unary_op(Op op, UnaryOp kernel, Reads reads, const Tensor& x, GradFn grad, double a = 0, double b = 0) {
  ops::check_defined(x, ops::op_name(op));
  Tensor y = dispatch::unary(kernel, x, a, b);
  if (autograd::needs_grad({&x})) {
    Tensor kept = reads == Reads::input || reads == Reads::both ? x : Tensor();
    if (reads == Reads::output || reads == Reads::both)
      ops::record(op, {x}, {y},
                  [kept, grad](const Grads& g, const Grads& out) { return Grads{grad(g[0], kept, out[0])}; });
    else
      ops::record(op, {x}, {y}, [kept, grad](const Grads& g) { return Grads{grad(g[0], kept, Tensor())}; });
  }
  return y;
}

// The second derivative's term in y of the fused backward kernels below (dx = g * f'(y)).
Tensor activation_backward_wrt_output(Op op, const Tensor& gg, const Tensor& g, const Tensor& y) {
  if (op == Op::sigmoid) return gg * g * (1.0 - 2.0 * y);  // d/dy g y (1 - y)
  if (op == Op::tanh) return gg * g * y * -2.0;             // d/dy g (1 - y^2)
  return Tensor();                                          // relu: g [y > 0] is flat in y
}

// The fused backward kernel of tanh, sigmoid and relu as an op of its own: under create_graph
// it records its backward, the same kernel for g and a formula for y.
Tensor activation_backward(Op op, BinaryOp kernel, const Tensor& g, const Tensor& y) {
  Tensor dx = dispatch::binary(kernel, g, y);
  if (autograd::needs_grad({&g, &y}))
    ops::record_backward(op, {g, y}, {dx}, [op, kernel, g, y](const Grads& gg) {
      return Grads{activation_backward(op, kernel, gg[0], y),
                   y.requires_grad() ? activation_backward_wrt_output(op, gg[0], g, y) : Tensor()};
    });
  return dx;
}

Tensor mask_of(const Tensor& cond, const Tensor& like) { return cast(cond, like.dtype()); }
Tensor no_grad(const Tensor& g, const Tensor&, const Tensor&) { return zeros_like(g); }

}  // namespace

Tensor neg(const Tensor& x) {
  return unary_op(Op::neg, UnaryOp::neg, Reads::nothing, x,
                  [](const Tensor& g, const Tensor&, const Tensor&) { return -g; });
}
Tensor abs(const Tensor& x) {
  return unary_op(Op::abs, UnaryOp::abs, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * sign(x); });
}
Tensor exp(const Tensor& x) {
  return unary_op(Op::exp, UnaryOp::exp, Reads::output, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * y; });
}
Tensor log(const Tensor& x) {
  return unary_op(Op::log, UnaryOp::log, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g / x; });
}
Tensor log1p(const Tensor& x) {
  return unary_op(Op::log1p, UnaryOp::log1p, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g / (x + 1.0); });
}
Tensor expm1(const Tensor& x) {
  return unary_op(Op::expm1, UnaryOp::expm1, Reads::output, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * (y + 1.0); });
}
Tensor sqrt(const Tensor& x) {
  return unary_op(Op::sqrt, UnaryOp::sqrt, Reads::output, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * 0.5 / y; });
}
Tensor rsqrt(const Tensor& x) {
  return unary_op(Op::rsqrt, UnaryOp::rsqrt, Reads::output, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return g * -0.5 * y * y * y; });
}
Tensor square(const Tensor& x) {
  return unary_op(Op::square, UnaryOp::square, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * 2.0 * x; });
}
Tensor reciprocal(const Tensor& x) {
  return unary_op(Op::reciprocal, UnaryOp::reciprocal, Reads::output, x,
                  [](const Tensor& g, const Tensor&, const Tensor& y) { return -g * y * y; });
}
Tensor sin(const Tensor& x) {
  return unary_op(Op::sin, UnaryOp::sin, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * cos(x); });
}
Tensor cos(const Tensor& x) {
  return unary_op(Op::cos, UnaryOp::cos, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return -g * sin(x); });
}
// asin and acos: defined on [-1, 1], their gradients infinite at the ends (NaN outside, as the ops).
Tensor asin(const Tensor& x) {
  return unary_op(Op::asin, UnaryOp::asin, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * rsqrt(1.0 - square(x)); });
}
Tensor acos(const Tensor& x) {
  return unary_op(Op::acos, UnaryOp::acos, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return -g * rsqrt(1.0 - square(x)); });
}
Tensor atan(const Tensor& x) {
  return unary_op(Op::atan, UnaryOp::atan, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g / (square(x) + 1.0); });
}
Tensor erf(const Tensor& x) {
  return unary_op(Op::erf, UnaryOp::erf, Reads::input, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    return g * exp(-square(x)) * 1.1283791670955126;  // 2 / sqrt(pi)
  });
}
Tensor tanh(const Tensor& x) {
  return unary_op(Op::tanh, UnaryOp::tanh, Reads::output, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    return activation_backward(Op::tanh, BinaryOp::tanh_backward, g, y);
  });
}
Tensor sigmoid(const Tensor& x) {
  return unary_op(Op::sigmoid, UnaryOp::sigmoid, Reads::output, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    return activation_backward(Op::sigmoid, BinaryOp::sigmoid_backward, g, y);
  });
}
Tensor relu(const Tensor& x) {
  return unary_op(Op::relu, UnaryOp::relu, Reads::output, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    return activation_backward(Op::relu, BinaryOp::relu_backward, g, y);
  });
}
Tensor relu6(const Tensor& x) {
  return unary_op(Op::relu6, UnaryOp::relu6, Reads::input, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    return g * mask_of(logical_and(x > 0.0, x < 6.0), g);
  });
}
Tensor leaky_relu(const Tensor& x, double slope) {
  return unary_op(Op::leaky_relu, UnaryOp::leaky_relu, Reads::input, x,
      [slope](const Tensor& g, const Tensor& x, const Tensor&) { return where(x > 0.0, g, g * slope); }, slope);
}
Tensor elu(const Tensor& x, double alpha) {
  return unary_op(Op::elu, UnaryOp::elu, Reads::both, x,
      [alpha](const Tensor& g, const Tensor& x, const Tensor& y) { return where(x > 0.0, g, g * (y + alpha)); },
      alpha);
}
Tensor selu(const Tensor& x) {
  // y > 0 exactly where x > 0 (scale and alpha are positive), so the input need not be kept.
  return unary_op(Op::selu, UnaryOp::selu, Reads::output, x, [](const Tensor& g, const Tensor&, const Tensor& y) {
    const double alpha = 1.6732632423543772, scale = 1.0507009873554805;
    return where(y > 0.0, g * scale, g * (y + scale * alpha));
  });
}
Tensor gelu(const Tensor& x) {
  return unary_op(Op::gelu, UnaryOp::gelu, Reads::both, x, [](const Tensor& g, const Tensor& x, const Tensor& y) {
    // d/dx x·Φ(x) = Φ(x) + x·φ(x); Φ(x) = y / x away from 0, and 1/2 at 0.
    Tensor phi = exp(square(x) * -0.5) * 0.3989422804014327;
    Tensor big_phi = where(abs(x) > 1e-6, y / where(abs(x) > 1e-6, x, ones_like(x)), full_like(x, 0.5));
    return g * (big_phi + x * phi);
  });
}
Tensor softplus(const Tensor& x) {
  return unary_op(Op::softplus, UnaryOp::softplus, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g * sigmoid(x); });
}
Tensor softsign(const Tensor& x) {
  return unary_op(Op::softsign, UnaryOp::softsign, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) { return g / square(abs(x) + 1.0); });
}
Tensor silu(const Tensor& x) {
  return unary_op(Op::silu, UnaryOp::silu, Reads::input, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    Tensor s = sigmoid(x);
    return g * s * (x * (1.0 - s) + 1.0);
  });
}
Tensor mish(const Tensor& x) {
  return unary_op(Op::mish, UnaryOp::mish, Reads::input, x, [](const Tensor& g, const Tensor& x, const Tensor&) {
    Tensor t = tanh(softplus(x));
    return g * (t + x * (1.0 - t * t) * sigmoid(x));
  });
}
Tensor hard_sigmoid(const Tensor& x) {
  return unary_op(Op::hard_sigmoid, UnaryOp::hard_sigmoid, Reads::input, x,
                  [](const Tensor& g, const Tensor& x, const Tensor&) {
                    return g * mask_of(logical_and(x > -3.0, x < 3.0), g) / 6.0;
                  });
}
Tensor hard_tanh(const Tensor& x) {
  return unary_op(
      Op::hard_tanh, UnaryOp::hard_tanh, Reads::input, x,
      [](const Tensor& g, const Tensor& x, const Tensor&) { return g * mask_of(logical_and(x > -1.0, x < 1.0), g); });
}
Tensor sign(const Tensor& x) { return unary_op(Op::sign, UnaryOp::sign, Reads::nothing, x, no_grad); }
Tensor floor(const Tensor& x) { return unary_op(Op::floor, UnaryOp::floor, Reads::nothing, x, no_grad); }
Tensor ceil(const Tensor& x) { return unary_op(Op::ceil, UnaryOp::ceil, Reads::nothing, x, no_grad); }
Tensor round(const Tensor& x) { return unary_op(Op::round, UnaryOp::round, Reads::nothing, x, no_grad); }
Tensor clamp(const Tensor& x, double low, double high) {
  STRATA_CHECK(low <= high, "clamp: low (", low, ") is greater than high (", high, ")");
  return unary_op(Op::clamp, UnaryOp::clamp, Reads::input, x,
      [low, high](const Tensor& g, const Tensor& x, const Tensor&) {
        return g * mask_of(logical_and(x >= full_like(x, low), x <= full_like(x, high)), g);
      },
      low, high);
}
Tensor pow(const Tensor& x, double exponent) {
  return unary_op(Op::pow_scalar, UnaryOp::pow_scalar, Reads::input, x,
      [exponent](const Tensor& g, const Tensor& x, const Tensor&) { return g * exponent * pow(x, exponent - 1); },
      exponent);
}
Tensor logical_not(const Tensor& x) { return dispatch::unary(UnaryOp::logical_not, x, 0, 0); }

std::span<const UnaryFunction> unary_functions() {
#define STRATA_UNARY_FUNCTION(ctx, op, name, dtypes, backward, api, onnx, ...) \
  STRATA_UNARY_FUNCTION_##api(op, name, onnx)
#define STRATA_UNARY_FUNCTION_fn(op, name, onnx) {name, [](const Tensor& x) { return op(x); }, false, false, onnx},
#define STRATA_UNARY_FUNCTION_act(op, name, onnx) {name, [](const Tensor& x) { return op(x); }, true, false, onnx},
#define STRATA_UNARY_FUNCTION_params(op, name, onnx)
#define STRATA_UNARY_FUNCTION_act_params(op, name, onnx) \
  {name, [](const Tensor& x) { return op(x); }, true, true, onnx},
  static constexpr UnaryFunction table[] = {STRATA_UNARY_OP_LIST(STRATA_UNARY_FUNCTION, )};
#undef STRATA_UNARY_FUNCTION
#undef STRATA_UNARY_FUNCTION_fn
#undef STRATA_UNARY_FUNCTION_act
#undef STRATA_UNARY_FUNCTION_params
#undef STRATA_UNARY_FUNCTION_act_params
  return table;
}

}  // namespace strata
