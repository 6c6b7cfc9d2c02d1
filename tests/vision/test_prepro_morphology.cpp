// Binary and grey morphology with a disk against TensorLayer 2.2.5 (its own dilation never ran, so
// grey dilation against scikit-image's, the reference its docstring names; fixtures
// tl_prepro_morphology.npz from make_tl_prepro_fixtures.py).
#include <gtest/gtest.h>

#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(TlPreproMorphology, DiskDilationAndErosionMatchScikitImage) {
  const auto& f = testing::tl_prepro_fixture("morphology");
  const Tensor& binary = f.at("binary");
  std::vector<bool> negated = binary.to_vector<bool>();
  negated.flip();
  const Tensor not_binary = from_vector(negated, binary.shape());
  for (int64_t r = 0; r <= 3; ++r) {
    const std::string k = std::to_string(r);
    EXPECT_EQ(max_abs_diff(vision::disk(r), f.at("disk_" + k)), 0) << "disk " << k;
    const Tensor dilated = vision::binary_dilation(binary, r);
    EXPECT_EQ(dilated.dtype(), kBool);
    EXPECT_EQ(max_abs_diff(dilated, f.at("binary_dilation_" + k)), 0) << "binary_dilation radius " << k;
    EXPECT_EQ(max_abs_diff(vision::binary_erosion(not_binary, r), f.at("binary_erosion_" + k)), 0)
        << "binary_erosion " << k;
    for (const std::string suffix : {"", "_float"}) {
      const Tensor& grey = f.at(suffix.empty() ? "grey" : "grey_float");
      const Tensor eroded = vision::erosion(grey, r);
      EXPECT_EQ(eroded.dtype(), grey.dtype());
      EXPECT_EQ(max_abs_diff(eroded, f.at("erosion" + suffix + "_" + k)), 0) << "erosion" << suffix << " " << k;
      EXPECT_EQ(max_abs_diff(vision::dilation(grey, r), f.at("dilation" + suffix + "_" + k)), 0)
          << "dilation" << suffix << " " << k;
    }
  }
}

TEST(TlPreproMorphology, BadInputsAreErrors) {
  testing::expect_error([] { vision::erosion(zeros({3, 4, 2}), 1); }, {"erosion", "2-D", "[3, 4, 2]"});
  testing::expect_error([] { vision::binary_dilation(zeros({3, 4}), -1); }, {"binary_dilation", "radius", "-1"});
  testing::expect_error([] { vision::disk(5000); }, {"disk", "5000"});
}

}  // namespace
}  // namespace strata
