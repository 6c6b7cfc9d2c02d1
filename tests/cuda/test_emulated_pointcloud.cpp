// The CUDA backend's point-cloud searches (pointcloud.cu), emulated, against the CPU's, beyond
// the conformance table's small float64 cases: float32 and float64 clouds on a grid (exact ties)
// and at random, farthest point sampling over many parts per cloud, knn up to the kernel's
// largest k and its error past it, ball queries that find none, some or more than they keep, and
// the ops' argument errors.
#include <gtest/gtest.h>

#include "cuda/emulated_compare.hpp"
#include "strata/ops/pointcloud.hpp"

namespace strata::testing {
namespace {

// A cloud [b, n, d] of `dtype`: on the grid {-1, -0.5, ..., 1} (ties everywhere) or at random.
Tensor cloud(Generator& gen, int64_t b, int64_t n, int64_t d, DType dtype, bool on_grid) {
  const Tensor x = uniform({b, n, d}, -1, 1, kFloat64, &gen);
  return cast(on_grid ? round(x * 2.0) / 2.0 : x, dtype);
}

TEST(EmulatedPointCloud, RunsTheCudaKernels) {
  install_emulated_cuda();
  STRATA_CUDA_POINTCLOUD_STUBS(STRATA_EXPECT_CUDA_KERNEL)
}

TEST(EmulatedPointCloud, SearchesOnGridsAndRandomCloudsMatchTheCpu) {
  Generator gen(5);
  for (DType dtype : {kFloat32, kFloat64})
    for (bool on_grid : {true, false}) {
      const std::string what = std::string(dtype_name(dtype)) + (on_grid ? " grid" : " random");
      const Tensor points = cloud(gen, 3, 700, 3, dtype, on_grid), queries = cloud(gen, 3, 50, 3, dtype, on_grid);
      for (int64_t m : {1, 2, 100, 700})
        expect_same_as_cpu("farthest_point_sample m " + std::to_string(m) + " " + what, {points},
                           [m](const Tensors& in) { return farthest_point_sample(in[0], m); });
      for (int64_t k : {1, 3, 32, 64})
        expect_same_as_cpu("knn k " + std::to_string(k) + " " + what, {queries, points},
                           [k](const Tensors& in) { return knn(in[0], in[1], k); });
      for (double radius : {0.05, 0.3, 0.5, 4.0})
        expect_same_as_cpu("ball_query radius " + std::to_string(radius) + " " + what, {queries, points},
                           [radius](const Tensors& in) { return ball_query(in[0], in[1], radius, 40); });
      expect_same_as_cpu("three_interpolate " + what, {cloud(gen, 3, 700, 5, dtype, false), points, queries},
                         [](const Tensors& in) { return three_interpolate(in[0], in[1], in[2]); });
    }
  const Tensor wide = cloud(gen, 2, 90, 6, kFloat64, true);
  expect_same_as_cpu("farthest_point_sample 6-d", {wide},
                     [](const Tensors& in) { return farthest_point_sample(in[0], 45); });
  expect_same_as_cpu("knn 6-d", {wide}, [](const Tensors& in) { return knn(in[0], in[0], 9); });
  expect_same_as_cpu("empty batch", {cloud(gen, 0, 5, 3, kFloat32, false)},
                     [](const Tensors& in) { return knn(in[0], in[0], 2); });
}

TEST(EmulatedPointCloud, ArgumentErrorsAreTheCpus) {
  Generator gen(6);
  const Tensor points = cloud(gen, 2, 20, 3, kFloat32, false);
  expect_same_error("m past N", {points}, [](const Tensors& in) { return farthest_point_sample(in[0], 21); });
  expect_same_error("k past N", {points}, [](const Tensors& in) { return knn(in[0], in[0], 21); });
  expect_same_error("dtypes differ", {points, cast(points, kFloat64)},
                    [](const Tensors& in) { return knn(in[0], in[1], 2); });
  expect_same_error("radius 0", {points}, [](const Tensors& in) { return ball_query(in[0], in[0], 0.0, 2); });
}

TEST(EmulatedPointCloud, KnnPastTheKernelsLargestKSaysSo) {
  install_emulated_cuda();
  Generator gen(7);
  const Tensor points = cloud(gen, 1, 100, 3, kFloat32, false).to(kEmulatedCuda);
  try {
    knn(points, points, 65);
    ADD_FAILURE() << "knn with k = 65 went through on the device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than the CUDA kernel's 64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::testing
