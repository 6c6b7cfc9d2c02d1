// The synthetic scans (strata/data/synthetic_scans.hpp): pure functions of (seed, index), masks
// of the four classes, and classes that intensity alone does not separate.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/data/synthetic_scans.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

bool scans_same(const Tensor& a, const Tensor& b) {
  return a.to(kFloat64).to_vector<double>() == b.to(kFloat64).to_vector<double>();
}

TEST(SyntheticScansTest, ExamplesArePureFunctionsOfSeedAndIndex) {
  const data::Dataset a = data::synthetic_scans(10, 7), b = data::synthetic_scans(10, 7), c = data::synthetic_scans(10, 8);
  const data::Example e = a.get(6);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].shape(), Shape({64, 64, 1}));
  EXPECT_EQ(e[0].dtype(), kFloat32);
  EXPECT_EQ(e[1].shape(), Shape({64, 64}));
  EXPECT_EQ(e[1].dtype(), kInt64);
  a.get(2);  // reading another example first changes nothing
  EXPECT_TRUE(scans_same(b.get(6)[0], e[0]));
  EXPECT_TRUE(scans_same(b.get(6)[1], e[1]));
  EXPECT_FALSE(scans_same(c.get(6)[0], e[0]));
  EXPECT_FALSE(scans_same(a.get(5)[1], e[1]));
  EXPECT_GE(min(e[0]).item<double>(), 0.0);
  EXPECT_LE(max(e[0]).item<double>(), 1.0);
}

// Over 40 scans: every class occurs, the lesion is small, most scans have one, and the small
// organs' mean intensity is the surrounding tissue's (so only texture and shape separate them).
TEST(SyntheticScansTest, ClassesAreThereAndOverlapInIntensity) {
  const data::Dataset set = data::synthetic_scans(40, 1, {.size = 48});
  std::vector<double> pixels(4, 0), intensity(4, 0);
  int with_lesion = 0;
  for (const data::Example& e : set) {
    const std::vector<float> img = e[0].to_vector<float>();
    const std::vector<int64_t> mask = e[1].to_vector<int64_t>();
    bool lesion = false;
    for (size_t i = 0; i < mask.size(); ++i) {
      ASSERT_TRUE(mask[i] >= 0 && mask[i] < 4);
      pixels[mask[i]] += 1;
      intensity[mask[i]] += img[i];
      lesion = lesion || mask[i] == 3;
    }
    with_lesion += lesion;
  }
  for (int c = 0; c < 4; ++c) EXPECT_GT(pixels[c], 0) << data::synthetic_scan_classes()[c];
  EXPECT_LT(pixels[3], 0.02 * 40 * 48 * 48);  // lesions: under 2% of the pixels
  EXPECT_GT(with_lesion, 20);
  EXPECT_LT(with_lesion, 40);
  const double organ = intensity[1] / pixels[1], small = intensity[2] / pixels[2], lesion = intensity[3] / pixels[3];
  EXPECT_GT(organ, small + 0.15);
  // Background mixes air (dark) and tissue, so its mean is below the small organs'; the lesion's
  // is between the tissue's and the organ's, within reach of both.
  EXPECT_LT(std::abs(lesion - small), 0.15);
}

TEST(SyntheticScansTest, RefusesBadOptions) {
  testing::expect_error([] { data::synthetic_scans(-1, 0); }, {"synthetic_scans", "size >= 0", "-1"});
  testing::expect_error([] { data::synthetic_scans(4, 0, {.size = 8}); }, {"synthetic_scans", "16 to 1024", "8"});
  testing::expect_error([] { data::synthetic_scans(4, 0, {.noise = -0.1}); }, {"synthetic_scans", "noise"});
  testing::expect_error([] { data::synthetic_scans(4, 0, {.drift = 1}); }, {"synthetic_scans", "drift"});
  testing::expect_error([] { data::synthetic_scans(4, 0, {.lesion_probability = 2}); }, {"synthetic_scans", "lesion"});
}

}  // namespace
}  // namespace strata
