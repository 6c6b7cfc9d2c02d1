// For slopes in (0, 1] TensorLayer's min/max forms equal relu6 plus scaled ReLUs of the parts
// below 0 and above 6, which autograd differentiates from the ops it has.
#include "strata/nn/layers/activation.hpp"

#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {

namespace {

void check_slope(double alpha, const char* op, const char* what) {
  STRATA_CHECK(alpha > 0 && alpha <= 1, op, ": expected ", what, " in (0, 1] (TensorLayer's rule), got ", alpha);
}

}  // namespace

Tensor ramp(const Tensor& x, double v_min, double v_max) {
  STRATA_CHECK(v_min <= v_max, "ramp: expected v_min <= v_max, got ", v_min, " and ", v_max);
  return clamp(x, v_min, v_max);
}

Tensor leaky_relu6(const Tensor& x, double alpha) {
  check_slope(alpha, "leaky_relu6", "alpha");
  return relu6(x) - strata::relu(-x) * alpha;
}

Tensor leaky_twice_relu6(const Tensor& x, double alpha_low, double alpha_high) {
  check_slope(alpha_low, "leaky_twice_relu6", "alpha_low");
  check_slope(alpha_high, "leaky_twice_relu6", "alpha_high");
  return relu6(x) + strata::relu(x - 6.0) * alpha_high - strata::relu(-x) * alpha_low;
}

}  // namespace strata::nn
