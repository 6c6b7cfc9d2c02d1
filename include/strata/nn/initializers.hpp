// Weight initializers (TensorLayer's / Keras's set). fan_in and fan_out follow the weight
// layouts: Dense [in, out]; Conv [k..., in, out] (fan_in = in * prod(k), fan_out = out * prod(k)).
#pragma once
#include <functional>

#include "strata/core/factory.hpp"

namespace strata::nn {

using Initializer = std::function<Tensor(const Shape& shape, Generator* gen)>;

Initializer zeros_init();
Initializer ones_init();
Initializer constant_init(double value);
Initializer random_uniform(double low = -0.05, double high = 0.05);
Initializer random_normal(double mean = 0.0, double stddev = 0.05);
Initializer truncated_normal(double mean = 0.0, double stddev = 0.05);  // redrawn beyond 2 stddev
Initializer glorot_uniform();  // Xavier
Initializer glorot_normal();
Initializer he_uniform();      // Kaiming, for relu
Initializer he_normal();
Initializer orthogonal(double gain = 1.0);

// (fan_in, fan_out) of a weight of this shape.
std::pair<double, double> fans(const Shape& shape);

}  // namespace strata::nn
