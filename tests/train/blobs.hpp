// Shared by the train tests: a small separable problem (two Gaussian blobs in the plane), a
// small classifier for it, built so that an optimizer can be made from its weights, and ways to
// start two classifiers from the same weights and to compare where they end.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/nn.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::train::testing {

struct Blobs {
  Tensor x;  // [n, 2] float32
  Tensor y;  // [n] int64: 0 around (-2, -2), 1 around (2, 2), unit variance; classes interleaved
};

inline Blobs make_blobs(int64_t n, uint64_t seed) {
  Generator gen(seed);
  const Tensor labels = cast(randint(0, 2, {n}, kInt64, &gen), kInt64);
  const Tensor centers = (cast(labels, kFloat32) * 4.0 - 2.0).unsqueeze(1).expand({n, 2});
  return {randn({n, 2}, kFloat32, &gen) + centers, labels};
}

// Dense(16, relu) -> [Dropout] -> Dense(2), called once so that its weights exist.
inline std::unique_ptr<nn::Sequential> make_classifier(double dropout = 0) {
  auto net = std::make_unique<nn::Sequential>();
  net->add<nn::Dense>(16, "relu");
  if (dropout > 0) net->add<nn::Dropout>(dropout);
  net->add<nn::Dense>(2);
  (*net)(zeros({1, 2}));
  return net;
}

// Gives `to` the values of `from`'s weights (same architecture), so two runs start alike.
inline void copy_weights(const nn::Layer& from, nn::Layer& to) {
  const auto src = from.all_weights(), dst = to.all_weights();
  STRATA_CHECK(src.size() == dst.size(), "copy_weights: different architectures");
  for (size_t i = 0; i < src.size(); ++i) std::memcpy(dst[i].raw_data(), src[i].raw_data(), src[i].nbytes());
}

// Every weight of `got` within `tolerance` of `want`'s, naming the first that is not.
inline void expect_weights_near(const nn::Layer& got, const nn::Layer& want, double tolerance) {
  const auto g = got.all_weights(), w = want.all_weights();
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const auto gv = g[i].to_vector<double>(), wv = w[i].to_vector<double>();
    for (size_t k = 0; k < gv.size(); ++k) ASSERT_NEAR(gv[k], wv[k], tolerance) << "weight " << i << "[" << k << "]";
  }
}

}  // namespace strata::train::testing
