#include "strata/nn/layers/noise.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/elementwise.hpp"

namespace strata::nn {

GaussianNoise::GaussianNoise(Options options, std::string name)
    : Layer("gaussiannoise", std::move(name)),
      options_(std::move(options)),
      gen_(options_.seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(options_.seed)) : nullptr) {
  check_options(options_, *this);
}

Tensor GaussianNoise::forward(const Tensor& x) {
  if (!training() && !options_.is_always) return x;
  expect(is_floating(x.dtype()), std::string("expects a float32 or float64 input, got ") + dtype_name(x.dtype()));
  return x + normal(x.shape(), options_.mean, options_.stddev, x.dtype(), gen_.get());
}

STRATA_DEFINE_OPTIONS(GaussianNoiseOptions, STRATA_GAUSSIAN_NOISE_OPTIONS)
STRATA_LAYER("gaussiannoise", GaussianNoise);

}  // namespace strata::nn
