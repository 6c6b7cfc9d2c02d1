// The CUDA backend's point-cloud searches (pointcloud.cu), emulated, against the CPU's, beyond
// the conformance table's small float64 cases: float32 and float64 clouds on a grid (exact ties)
// and at random, farthest point sampling over many parts per cloud, knn up to the kernel's
// largest k and its error past it, ball queries that find none, some or more than they keep, and
// the ops' argument errors; scatter_max's rows per cell (ties, -0 beside +0, NaNs, cells no row
// reaches) and voxelisation (cells on their boundaries, many voxels, points refused), through
// their dispatch families and through strata/points/scatter.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cuda/emulated_compare.hpp"
#include "strata/ops/pointcloud.hpp"
#include "strata/points/scatter.hpp"

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

// expect_same_as_cpu for code that must succeed: both devices giving one error would pass there.
template <class Fn>
void expect_same_values(const std::string& what, const Tensors& inputs, const Fn& fn, Grads grads = Grads::no) {
  const RunResult cpu = expect_same_as_cpu(what, inputs, fn, grads);
  EXPECT_EQ(cpu.error, "") << what;
  EXPECT_FALSE(cpu.outputs.empty()) << what;
}

// Features [n, c] of `dtype`: on the grid {-1, -0.5, ..., 1} (ties everywhere, -0 beside +0) or
// at random, with every 7th value NaN where asked.
Tensor features(Generator& gen, int64_t n, int64_t c, DType dtype, bool on_grid, bool nans) {
  std::vector<double> v = uniform({n, c}, -1, 1, kFloat64, &gen).to_vector<double>();
  for (size_t i = 0; i < v.size(); ++i) {
    if (on_grid) v[i] = std::round(v[i] * 2) / 2;
    if (nans && i % 7 == 3) v[i] = std::numeric_limits<double>::quiet_NaN();
  }
  return cast(from_vector(v, {n, c}), dtype);
}

// n cell ids in [0, cells).
Tensor cell_ids(Generator& gen, int64_t n, int64_t cells) {
  return cast(floor(uniform({n}, 0, static_cast<double>(cells), kFloat64, &gen)), kInt64);
}

TEST(EmulatedPointCloud, ScatterMaxRowsMatchTheCpusScanOrder) {
  Generator gen(8);
  for (DType dtype : {kFloat32, kFloat64})
    for (bool on_grid : {true, false})
      for (bool nans : {false, true}) {
        const std::string what =
            std::string(dtype_name(dtype)) + (on_grid ? " grid" : " random") + (nans ? " NaNs" : "");
        // 60 cells for 300 rows: some cells take none, the others several.
        const Tensor src = features(gen, 300, 5, dtype, on_grid, nans), index = cell_ids(gen, 300, 60);
        expect_same_values("scatter_max_rows " + what, {src, index},
                           [](const Tensors& in) { return dispatch::scatter_max_rows(in[0], in[1], 70); });
        if (!nans)  // the op: values and the gradient to the rows of the maxima
          expect_same_values(
              "scatter_max " + what, {src, index},
              [](const Tensors& in) { return points::scatter_max(in[0], in[1], 70); }, Grads::yes);
      }
  const Tensor src = features(gen, 40, 3, kFloat32, true, false);
  expect_same_values("one cell", {src, zeros({40}, kInt64)},
                     [](const Tensors& in) { return dispatch::scatter_max_rows(in[0], in[1], 1); });
  expect_same_values("no rows", {features(gen, 0, 3, kFloat64, false, false), zeros({0}, kInt64)},
                     [](const Tensors& in) { return points::scatter_max(in[0], in[1], 4); });
  expect_same_values("no cells", {features(gen, 0, 3, kFloat64, false, false), zeros({0}, kInt64)},
                     [](const Tensors& in) { return dispatch::scatter_max_rows(in[0], in[1], 0); });
  std::vector<int64_t> bad(40, 1);
  bad[17] = 5, bad[30] = -1;
  expect_same_error("an index past count", {src, from_vector(bad, {40})},
                    [](const Tensors& in) { return points::scatter_max(in[0], in[1], 5); });
  bad[17] = 2;
  expect_same_error("a negative index", {src, from_vector(bad, {40})},
                    [](const Tensors& in) { return points::scatter_max(in[0], in[1], 5); });
}

Tensors voxels_of(const Tensor& points, double size) {
  const points::Voxels v = points::voxelize(points, size);
  return {v.point_voxel, v.coordinates, v.counts};
}

TEST(EmulatedPointCloud, VoxelisationMatchesTheCpusNumbering) {
  Generator gen(9);
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor pts = cast(uniform({2000, 5}, -3, 3, kFloat64, &gen), dtype);
    for (double size : {0.01, 0.2, 1.0, 100.0})  // from a voxel per point to one voxel
      expect_same_values(std::string(dtype_name(dtype)) + " voxel size " + std::to_string(size), {pts},
                         [size](const Tensors& in) { return voxels_of(in[0], size); });
    // Coordinates on the cells' boundaries (multiples of the size, negative ones too): floor's edge.
    const Tensor on_edges = cast(round(uniform({500, 3}, -2, 2, kFloat64, &gen) * 4.0) / 4.0, dtype);
    expect_same_values(std::string(dtype_name(dtype)) + " on the boundaries", {on_edges},
                       [](const Tensors& in) { return voxels_of(in[0], 0.25); });
  }
  expect_same_values("no points", {zeros({0, 3})}, [](const Tensors& in) { return voxels_of(in[0], 0.5); });
  std::vector<double> far = uniform({30, 3}, -1, 1, kFloat64, &gen).to_vector<double>();
  far[3 * 11 + 1] = 1e30, far[3 * 20] = 1e30;
  expect_same_error("a point too far", {from_vector(far, {30, 3})},
                    [](const Tensors& in) { return voxels_of(in[0], 0.1); });
  far[3 * 11 + 1] = 0, far[3 * 4 + 2] = std::numeric_limits<double>::quiet_NaN();
  expect_same_error("a NaN coordinate", {from_vector(far, {30, 3})},
                    [](const Tensors& in) { return voxels_of(in[0], 0.1); });
  expect_same_error("voxel size 0", {zeros({4, 3})}, [](const Tensors& in) { return voxels_of(in[0], 0.0); });
}

}  // namespace
}  // namespace strata::testing
