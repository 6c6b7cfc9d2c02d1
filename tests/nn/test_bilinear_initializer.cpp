// deconv2d_bilinear_upsampling_initializer against TensorLayer 2.2.5's weights
// (tests/vision/fixtures/tl_prepro_iterate_utils.npz from tests/vision/make_tl_prepro_fixtures.py).
#include <gtest/gtest.h>

#include "strata/nn/layers/conv.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "vision/tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(BilinearInitializer, MatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("iterate_utils");
  const nn::Initializer init = nn::deconv2d_bilinear_upsampling_initializer();
  for (int k = 0; f.contains("bilinear_" + std::to_string(k)); ++k) {
    const Shape shape(f.at("bilinear_shape_" + std::to_string(k)).to_vector<int64_t>());
    const Tensor w = init(shape, nullptr);
    EXPECT_EQ(w.dtype(), kFloat32);
    EXPECT_EQ(max_abs_diff(w, f.at("bilinear_" + std::to_string(k))), 0) << shape.str();
  }
  testing::expect_error(
      [&] {
        init({3, 4, 1, 1}, nullptr);
      },
      {"deconv2d_bilinear_upsampling_initializer", "[3, 4, 1, 1]"});
  testing::expect_error([&] { init({4, 4, 3, 2}, nullptr); }, {"in >= out"});
}

}  // namespace
}  // namespace strata
