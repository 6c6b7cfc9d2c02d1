#include "strata/nn/layers/shape.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor bilinear_sample(const Tensor& x, const Tensor& ys, const Tensor& xs) {
  STRATA_CHECK(x.dim() == 4 && is_floating(x.dtype()), "bilinear_sample: expected a floating x [N, H, W, C], got ",
               x.shape().str(), " ", dtype_name(x.dtype()));
  STRATA_CHECK(ys.dim() == 2 && ys.shape() == xs.shape() && ys.size(0) == x.size(0),
               "bilinear_sample: expected positions [N, M] with N = ", x.size(0), ", got ", ys.shape().str(), " and ",
               xs.shape().str());
  const int64_t n = x.size(0), h = x.size(1), w = x.size(2), c = x.size(3), m = ys.size(1);
  Tensor py = cast(ys, x.dtype()), px = cast(xs, x.dtype());
  Tensor y0 = floor(py).detach(), x0 = floor(px).detach();
  Tensor ty = py - y0, tx = px - x0;  // the gradient of the positions flows through these weights
  Tensor flat = reshape(x, {n * h * w, c});
  Tensor out;
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      Tensor index, valid;
      {
        NoGradGuard no_grad;
        // Index arithmetic in float64: exact for any image a tensor can hold.
        Tensor yi = cast(y0, kFloat64) + static_cast<double>(dy), xi = cast(x0, kFloat64) + static_cast<double>(dx);
        valid = logical_and(logical_and(yi > -0.5, yi < h - 0.5), logical_and(xi > -0.5, xi < w - 0.5));
        Tensor base = reshape(arange(0, static_cast<double>(n * h * w), static_cast<double>(h * w), kFloat64), {n, 1});
        // Out-of-image neighbours read pixel 0 with weight 0.
        index = cast(where(valid, base + yi * static_cast<double>(w) + xi, zeros_like(yi)), kInt64);
      }
      Tensor weight = (dy ? ty : 1.0 - ty) * (dx ? tx : 1.0 - tx) * cast(valid, x.dtype());
      Tensor v = reshape(index_select(flat, 0, reshape(index, {n * m})), {n, m, c}) * unsqueeze(weight, 2);
      out = out.defined() ? out + v : v;
    }
  return out;
}

}  // namespace strata::nn
