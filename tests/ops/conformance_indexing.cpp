// Conformance cases for the indexing, combining and sorting ops. Values fed to sort/topk are
// continuous random numbers, so no two tie and the finite differences see a smooth function.
// Then the point-cloud searches (strata/ops/pointcloud.hpp), whose int64 results are outside the
// op table (conformance.hpp, index_result_ops): every backend must pick the CPU's indices. Most
// of their clouds lie on a coarse grid, so distances tie exactly and the tie rules (the lower
// index first) decide; duplicate points tie at distance 0.
#include "ops/conformance.hpp"
#include "strata/ops/sort.hpp"

namespace strata::testing {
namespace {

using V = std::vector<Tensor>;

Tensor i64(std::vector<int64_t> v, const Shape& shape) { return from_vector(v, shape); }
Tensor i64(std::vector<int64_t> v) { return from_vector(v); }
Tensor mask(std::vector<bool> v, const Shape& shape) { return from_vector(v, shape); }
// A float64 cloud with coordinates on the grid {-1, -0.5, 0, 0.5, 1}, times `scale`.
Tensor grid(Generator& gen, const Shape& shape, double scale = 1) {
  return round(rand64(gen, shape) * 2.0) * (scale / 2.0);
}

}  // namespace

STRATA_CONFORMANCE_CASES(indexing) {
  return {
      OpCase{"index_select", {rand64(gen, {3, 4}), i64({2, 0, 2})},
             [](const V& in) { return index_select(in[0], 0, in[1]); }, "repeated rows"},
      OpCase{"index_select", {noncontiguous64(gen, {4, 3}), i64({1, 1, 0, 2})},
             [](const V& in) { return index_select(in[0], -1, in[1]); }, "last axis, non-contiguous"},
      OpCase{"gather", {rand64(gen, {3, 4}), i64({3, 0, 1, 1, 2, 2}, {3, 2})},
             [](const V& in) { return gather(in[0], 1, in[1]); }, "axis 1"},
      OpCase{"gather", {noncontiguous64(gen, {3, 2, 2}), i64({2, 0, 1, 1, 0, 0, 2, 1}, {4, 2, 1})},
             [](const V& in) { return gather(in[0], 0, in[1]); }, "axis 0, index longer than the axis, non-contiguous"},
      OpCase{"scatter_add", {rand64(gen, {3, 4}), noncontiguous64(gen, {2, 4}), i64({0, 2, 0, 1, 0, 0, 2, 1}, {2, 4})},
             [](const V& in) { return scatter_add(in[0], 0, in[2], in[1]); }, "repeated targets, non-contiguous src"},
      OpCase{"scatter_add", {rand64(gen, {2, 3}), rand64(gen, {3, 3}), i64({2, 2, 0, 1}, {2, 2})},
             [](const V& in) { return scatter_add(in[0], -1, in[2], in[1]); }, "index smaller than src"},
      OpCase{"masked_select", {rand64(gen, {3, 4}), mask({true, false, true, true}, {1, 4})},
             [](const V& in) { return masked_select(in[0], in[1]); }, "broadcast mask"},
      OpCase{"masked_select", {noncontiguous64(gen, {1, 3}), mask({true, false, false, true}, {4, 1})},
             [](const V& in) { return masked_select(in[0], in[1]); }, "both broadcast, non-contiguous"},
      OpCase{"masked_fill", {noncontiguous64(gen, {3, 4}), mask({true, false, true}, {3, 1})},
             [](const V& in) { return masked_fill(in[0], in[1], 2.5); }, "broadcast mask, non-contiguous"},
      OpCase{"embedding", {rand64(gen, {5, 3}), i64({4, 0, 4, 2, 1, 4}, {2, 3})},
             [](const V& in) { return embedding(in[0], in[1]); }, "repeated ids [2, 3]"},
      OpCase{"embedding", {noncontiguous64(gen, {4, 2}), i64({3, 3, 0})},
             [](const V& in) { return embedding(in[0], in[1]); }, "non-contiguous weight"},
  };
}

STRATA_CONFORMANCE_CASES(combine) {
  return {
      OpCase{"concat", {rand64(gen, {2, 3}), noncontiguous64(gen, {2, 2}), rand64(gen, {2, 1})},
             [](const V& in) { return concat({in[0], in[1], in[2]}, -1); }, "three parts, non-contiguous"},
      OpCase{"concat", {rand64(gen, {1, 2, 2}), rand64(gen, {3, 2, 2})},
             [](const V& in) { return concat({in[0], in[1]}, 0); }, "axis 0"},
      OpCase{"stack", {rand64(gen, {2, 3}), noncontiguous64(gen, {2, 3})},
             [](const V& in) { return stack({in[0], in[1]}, -1); }, "new last axis, non-contiguous"},
      OpCase{"split", {noncontiguous64(gen, {3, 5})},
             [](const V& in) {
               auto p = split(in[0], std::vector<int64_t>{2, 3}, 1);
               return concat({p[1] * p[1], p[0]}, 1);
             },
             "sizes, both pieces used, non-contiguous"},
      OpCase{"split", {rand64(gen, {5, 2})}, [](const V& in) { return split(in[0], 2, 0)[1]; },
             "one piece used: the others' gradients are zeros"},
      OpCase{"chunk", {noncontiguous64(gen, {4, 3})},
             [](const V& in) {
               auto p = chunk(in[0], 3, 0);
               return stack({p[1], p[0] * 2.0});
             },
             "non-contiguous"},
      OpCase{"pad", {rand64(gen, {2, 3})},
             [](const V& in) { return pad(in[0], {{1, 2}}, PadMode::constant, 0.5); }, "constant, last axis"},
      OpCase{"pad", {noncontiguous64(gen, {3, 4})},
             [](const V& in) { return pad(in[0], {{1, 2}, {3, 1}}, PadMode::reflect); }, "reflect, non-contiguous"},
      OpCase{"pad", {rand64(gen, {2, 3})},
             [](const V& in) { return pad(in[0], {{0, 1}, {2, 0}}, PadMode::replicate); }, "replicate"},
      OpCase{"tile", {noncontiguous64(gen, {2, 3})}, [](const V& in) { return tile(in[0], {2, 1, 2}); },
             "extra leading rep, non-contiguous"},
      OpCase{"flip", {noncontiguous64(gen, {2, 3, 2})}, [](const V& in) { return flip(in[0], {0, -1}); },
             "two axes, non-contiguous"},
      OpCase{"roll", {noncontiguous64(gen, {3, 4})}, [](const V& in) { return roll(in[0], {1, -3}, {0, 1}); },
             "two axes, non-contiguous"},
      OpCase{"roll", {rand64(gen, {2, 3})}, [](const V& in) { return roll(in[0], {4}); }, "flattened"},
  };
}

STRATA_CONFORMANCE_CASES(sort) {
  return {
      OpCase{"sort", {rand64(gen, {3, 4})}, [](const V& in) { return sort(in[0], 1).values; }, "ascending"},
      OpCase{"sort", {noncontiguous64(gen, {4, 3})}, [](const V& in) { return sort(in[0], 0, true).values; },
             "descending, axis 0, non-contiguous"},
      OpCase{"topk", {rand64(gen, {3, 5})}, [](const V& in) { return topk(in[0], 2).values; }, "largest"},
      OpCase{"topk", {noncontiguous64(gen, {4, 3})}, [](const V& in) { return topk(in[0], 3, 0, false).values; },
             "smallest, axis 0, non-contiguous"},
  };
}

STRATA_CONFORMANCE_CASES(pointcloud) {
  return {
      OpCase{"farthest_point_sample", {grid(gen, {2, 64, 3})},
             [](const V& in) { return farthest_point_sample(in[0], 24); }, "grid: ties and duplicate points"},
      OpCase{"farthest_point_sample", {rand64(gen, {3, 40, 2})},
             [](const V& in) { return farthest_point_sample(in[0], 40); }, "every point, 2-d"},
      OpCase{"farthest_point_sample", {noncontiguous64(gen, {2, 150, 5})},
             [](const V& in) { return farthest_point_sample(in[0], 17); }, "5-d, non-contiguous"},
      OpCase{"farthest_point_sample", {grid(gen, {1, 7, 3})},
             [](const V& in) { return farthest_point_sample(in[0], 1); }, "m = 1"},
      OpCase{"knn", {grid(gen, {2, 20, 3}), grid(gen, {2, 80, 3})},
             [](const V& in) { return knn(in[0], in[1], 32); }, "grid, k = 32: ties to the lower index"},
      OpCase{"knn", {rand64(gen, {2, 9, 4}), noncontiguous64(gen, {2, 30, 4})},
             [](const V& in) { return knn(in[0], in[1], 1); }, "4-d, k = 1, non-contiguous points"},
      OpCase{"knn", {grid(gen, {3, 12, 3})}, [](const V& in) { return knn(in[0], in[0], 12); },
             "queries are the points, k = N"},
      OpCase{"ball_query", {grid(gen, {2, 30, 3}, 2), grid(gen, {2, 90, 3})},
             [](const V& in) { return ball_query(in[0], in[1], 0.8, 16); },
             "grid: some queries find fewer than 16 or none"},
      OpCase{"ball_query", {grid(gen, {2, 10, 3})}, [](const V& in) { return ball_query(in[0], in[0], 0.5, 4); },
             "points at exactly the radius are out"},
      OpCase{"ball_query", {rand64(gen, {1, 6, 2}), noncontiguous64(gen, {1, 50, 2})},
             [](const V& in) { return ball_query(in[0], in[1], 3.0, 50); }, "every point within, non-contiguous"},
  };
}

}  // namespace strata::testing
