// Gamma, illumination and pixel drop against TensorLayer 2.2.5's brightness and illumination
// (fixtures/tl_prepro_color.npz, from make_tl_prepro_fixtures.py): uint8 results exactly, float
// ones to 1e-12.
#include <gtest/gtest.h>

#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(TlPreproColor, GammaMatchesTensorLayersBrightness) {
  const auto& f = testing::tl_prepro_fixture("color");
  const std::vector<double> gammas = f.at("gammas").to_vector<double>();
  for (size_t k = 0; k < gammas.size() / 2; ++k) {
    const double gamma = gammas[2 * k], gain = gammas[2 * k + 1];
    const std::string tag = "gamma " + std::to_string(gamma) + " gain " + std::to_string(gain);
    const Tensor u8 = vision::adjust_gamma(f.at("rgb"), gamma, gain);
    EXPECT_EQ(u8.dtype(), kUInt8);
    EXPECT_EQ(max_abs_diff(u8, f.at("gamma_rgb_" + std::to_string(k))), 0) << tag;
    EXPECT_LE(
        max_abs_diff(vision::adjust_gamma(f.at("floats"), gamma, gain), f.at("gamma_floats_" + std::to_string(k))),
        1e-12)
        << tag;
  }
}

TEST(TlPreproColor, IlluminationMatchesTensorLayerAndPillow) {
  const auto& f = testing::tl_prepro_fixture("color");
  const std::vector<double> s = f.at("illumination_settings").to_vector<double>();
  for (size_t k = 0; k < s.size() / 3; ++k) {
    const std::string tag = "illumination " + std::to_string(s[3 * k]) + " " + std::to_string(s[3 * k + 1]) + " " +
                            std::to_string(s[3 * k + 2]);
    EXPECT_EQ(max_abs_diff(vision::illumination(f.at("rgb"), s[3 * k], s[3 * k + 1], s[3 * k + 2]),
                           f.at("illumination_rgb_" + std::to_string(k))),
              0)
        << tag << " rgb";
    EXPECT_EQ(max_abs_diff(vision::illumination(f.at("grey"), s[3 * k], s[3 * k + 1], s[3 * k + 2]),
                           f.at("illumination_grey_" + std::to_string(k))),
              0)
        << tag << " grey";
  }
}

// The random form draws one of the fixed forms: with one-point ranges it is that form.
TEST(TlPreproColor, RandomIlluminationIsAFixedOneWithDrawnValues) {
  const Tensor& rgb = testing::tl_prepro_fixture("color").at("rgb");
  Generator gen(7);
  vision::IlluminationRanges ranges{.gamma = {1, 1}, .contrast = {0.6, 0.6}, .saturation = {1.7, 1.7}};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(max_abs_diff(vision::random_illumination(rgb, ranges, gen), vision::illumination(rgb, 1, 0.6, 1.7)), 0);
}

TEST(TlPreproColor, DropZeroesWholePixelsAtTheRightRate) {
  Generator gen(11);
  const Tensor image = full({64, 64, 3}, 200, kUInt8);
  const std::vector<uint8_t> v = vision::drop(image, 0.3, gen).to_vector<uint8_t>();
  int64_t kept = 0;
  for (size_t p = 0; p < v.size(); p += 3) {
    EXPECT_TRUE((v[p] == 0 && v[p + 1] == 0 && v[p + 2] == 0) || (v[p] == 200 && v[p + 1] == 200 && v[p + 2] == 200));
    kept += v[p] == 200;
  }
  // 4096 Bernoulli(0.3) draws: mean 1229, standard deviation 29; 5 deviations either side.
  EXPECT_NEAR(double(kept), 0.3 * 4096, 5 * 29.3);
  EXPECT_EQ(max_abs_diff(vision::drop(image, 1.0, gen), image), 0);
  EXPECT_EQ(vision::drop(rand({5, 7}), 0.0, gen).to_vector<double>(), std::vector<double>(35, 0.0));
}

TEST(TlPreproColor, BadArgumentsAreErrors) {
  const Tensor& rgb = testing::tl_prepro_fixture("color").at("rgb");
  testing::expect_error([&] { vision::adjust_gamma(rgb, -1); }, {"adjust_gamma", "gamma -1"});
  testing::expect_error([] { vision::adjust_gamma(full({2, 2}, -0.5), 1); }, {"adjust_gamma", ">= 0", "-0.5"});
  testing::expect_error([] { vision::illumination(rand({4, 4, 3}), 1, 1, 1); }, {"illumination", "uint8", "float32"});
  testing::expect_error([] { vision::illumination(zeros({4, 4, 4}, kUInt8), 1, 1, 1); }, {"illumination", "[4, 4, 4]"});
  testing::expect_error([&] { vision::drop(rgb, 1.5); }, {"drop", "keep", "1.5"});
}

}  // namespace
}  // namespace strata
