// bench_prepro: one-shot timings of the colour, elastic, affine and featurewise/ZCA
// preprocessing on CIFAR-sized batches, and how ZCA fitting grows with the feature count
// (the Jacobi eigen-solver is O(D^3) per sweep). No libtorch.
#include <cstdio>

#include "milliseconds.hpp"
#include "strata/core/factory.hpp"
#include "strata/vision/color.hpp"
#include "strata/vision/elastic.hpp"
#include "strata/vision/featurewise.hpp"
#include "strata/vision/image.hpp"

using namespace strata;
using namespace strata::vision;

int main() {
  Generator gen(1);
  for (int side : {8, 12, 16}) {
    Tensor patches = rand({2000, side, side, 1}, kFloat32, &gen);
    std::printf("ZcaWhitening::fit, 2000 samples of %dx%dx1 (D = %d): %.0f ms\n", side, side, side * side,
                milliseconds([&] { ZcaWhitening::fit(patches); }));
  }
  Tensor batch = rand({256, 32, 32, 3}, kFloat32, &gen);
  std::printf("on a 256x32x32x3 float32 batch:\n");
  std::printf("  random_hue(0.1)                     %.1f ms\n", milliseconds([&] { random_hue(batch, 0.1, gen); }));
  std::printf("  random_saturation(0.5, 1.5)         %.1f ms\n",
              milliseconds([&] { random_saturation(batch, 0.5, 1.5, gen); }));
  std::printf("  elastic_transform(alpha 8, sigma 3) %.1f ms\n",
              milliseconds([&] { elastic_transform(batch, 8, 3, gen); }));
  std::printf("  random_affine_transform(15 deg)     %.1f ms\n",
              milliseconds([&] { random_affine_transform(batch, {.rotation_degrees = 15}, gen); }));
  std::printf("  FeaturewiseNormalization fit+apply  %.1f ms\n",
              milliseconds([&] { FeaturewiseNormalization::fit(batch)(batch); }));
}
