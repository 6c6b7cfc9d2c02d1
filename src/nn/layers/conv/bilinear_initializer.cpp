#include "strata/nn/layers/conv.hpp"

#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::nn {

Initializer deconv2d_bilinear_upsampling_initializer() {
  return [](const Shape& shape, Generator*) {
    STRATA_CHECK(
        shape.size() == 4 && shape[0] == shape[1] && shape[0] >= 1 && shape[3] >= shape[2] && shape[2] >= 0,
        "deconv2d_bilinear_upsampling_initializer: expected W [k, k, out, in] with a square filter and in >= out, got ",
        shape.str());
    const int64_t k = shape[0], out = shape[2], in = shape[3];
    const int64_t factor = (k + 1) / 2;
    const double centre = k % 2 == 1 ? double(factor - 1) : double(factor) - 0.5;
    std::vector<float> w(size_t(shape.numel()), 0.f);
    for (int64_t x = 0; x < k; ++x)
      for (int64_t y = 0; y < k; ++y) {
        // TensorLayer fills a float32 array from a float64 product.
        const auto v = float((1 - std::abs(double(x) - centre) / double(factor)) *
                             (1 - std::abs(double(y) - centre) / double(factor)));
        for (int64_t i = 0; i < out; ++i) w[size_t(((x * k + y) * out + i) * in + i)] = v;
      }
    return from_vector(w, shape);
  };
}

}  // namespace strata::nn
