// The CUDA backend's indexing kernels (index.cu, index_along.cu), emulated, against the CPU's,
// beyond the conformance table's small float64 cases: sort and topk on every dtype with many ties
// (which index comes first), NaN and infinities; gather, scatter-add with repeated targets and
// index_select on every dtype; the ops built on taking and writing slabs (concat, stack, flip,
// roll, tile, pad, masked_select, embedding) on several dtypes, strided views and empty indices;
// one_hot from every id dtype to several dtypes. With gradients where the op has them.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/emulated_compare.hpp"
#include "strata/ops/sort.hpp"

namespace strata::testing {
namespace {

// Values 0..3 of `dtype`: ties everywhere.
Tensor ties(Generator& gen, const Shape& shape, DType dtype) { return cast(randint(0, 4, shape, kInt64, &gen), dtype); }
Tensor ids(const std::vector<int64_t>& values, const Shape& shape) { return from_vector(values, shape); }
Tensors both(const ValuesAndIndices& r) { return {r.values, r.indices}; }

TEST(EmulatedIndex, RunsTheCudaKernels) {
  install_emulated_cuda();
  STRATA_CUDA_INDEX_STUBS(STRATA_EXPECT_CUDA_KERNEL)
}

TEST(EmulatedIndex, SortAndTopkWithTiesOnEveryDtypeMatchTheCpu) {
  Generator gen(3);
  for (DType dtype : {kFloat64, kFloat32, kInt64, kInt32, kUInt8, kBool})
    for (int64_t n : {1, 2, 5, 16, 37})
      for (bool flag : {false, true}) {
        const std::string what = dtype_name(dtype) + (" n " + std::to_string(n)) + (flag ? " descending" : "");
        const Tensor x = ties(gen, {3, n}, dtype);
        expect_same_as_cpu("sort " + what, {x}, [&](const Tensors& in) { return both(sort(in[0], 1, flag)); });
        expect_same_as_cpu("sort transposed " + what, {x},
                           [&](const Tensors& in) { return both(sort(in[0].transpose(0, 1), 0, flag)); });
        for (int64_t k : {int64_t{1}, std::max<int64_t>(1, n / 2), n})
          expect_same_as_cpu("topk " + std::to_string(k) + (flag ? " largest " : " smallest ") + what, {x},
                             [&](const Tensors& in) { return both(topk(in[0], k, 1, flag)); });
      }
}

TEST(EmulatedIndex, SortAndTopkOfNaNsAndInfinitiesMatchTheCpu) {
  const Tensor x = from_vector(std::vector<double>{1, NAN, -1, 2, NAN, 1, -INFINITY, INFINITY}, {8});
  for (bool flag : {false, true}) {
    expect_same_as_cpu(flag ? "sort descending" : "sort", {x},
                       [&](const Tensors& in) { return both(sort(in[0], 0, flag)); });
    for (int64_t k : {1, 3, 8})
      expect_same_as_cpu("topk " + std::to_string(k) + (flag ? " largest" : " smallest"), {x},
                         [&](const Tensors& in) { return both(topk(in[0], k, 0, flag)); });
  }
  expect_same_as_cpu("sort 0-d", {scalar_tensor(2.5, kFloat64)},
                     [](const Tensors& in) { return both(sort(in[0], 0)); });
  Generator gen(4);
  expect_same_as_cpu("topk of the middle axis", {rand({2, 3, 4}, kFloat64, &gen)},
                     [](const Tensors& in) { return both(topk(in[0], 2, 1)); }, Grads::yes);
}

TEST(EmulatedIndex, GatherScatterAddAndIndexSelectOnEveryDtypeMatchTheCpu) {
  Generator gen(4);
  const Tensor index = randint(0, 3, {4, 5}, kInt64, &gen);  // repeats: scatter_add adds into one target
  for (DType dtype : {kFloat64, kFloat32, kInt64, kInt32, kUInt8}) {
    const Tensor x = cast(randint(0, 100, {3, 5}, kInt64, &gen), dtype);
    const Tensor src = cast(randint(0, 100, {4, 6}, kInt64, &gen), dtype);
    const std::string what = dtype_name(dtype);
    expect_same_as_cpu("scatter_add " + what, {x, index, src},
                       [](const Tensors& in) { return scatter_add(in[0], 0, in[1], in[2]); });
    expect_same_as_cpu("gather " + what, {x, index}, [](const Tensors& in) { return gather(in[0], 0, in[1]); });
    expect_same_as_cpu("gather along axis 1 " + what, {x, index}, [](const Tensors& in) {
      return gather(in[0], 1, in[1].transpose(0, 1).contiguous().narrow(0, 0, 3));
    });
    expect_same_as_cpu("index_select, repeated " + what, {x, ids({4, 4, 0}, {3})},
                       [](const Tensors& in) { return index_select(in[0], 1, in[1]); });
  }
  expect_same_as_cpu("gather bool", {ties(gen, {3, 5}, kBool), index},
                     [](const Tensors& in) { return gather(in[0], 0, in[1]); });
  const Tensor x0 = scalar_tensor(1.5, kFloat64), i0 = scalar_tensor(0, kInt64);
  expect_same_as_cpu("scatter_add 0-d", {x0, i0, scalar_tensor(2.0, kFloat64)},
                     [](const Tensors& in) { return scatter_add(in[0], 0, in[1], in[2]); }, Grads::yes);
  expect_same_as_cpu("gather 0-d", {x0, i0}, [](const Tensors& in) { return gather(in[0], 0, in[1]); }, Grads::yes);
  expect_same_as_cpu("scatter_add float64", {rand({3, 5}, kFloat64, &gen), index, rand({4, 6}, kFloat64, &gen)},
                     [](const Tensors& in) { return scatter_add(in[0], 0, in[1], in[2]); }, Grads::yes);
}

TEST(EmulatedIndex, SlabOpsAndMasksOnSeveralDtypesMatchTheCpu) {
  Generator gen(5);
  for (DType dtype : {kFloat64, kInt32, kUInt8, kBool}) {
    const Tensor x = ties(gen, {3, 4}, dtype);
    const std::string what = dtype_name(dtype);
    expect_same_as_cpu("masked_select " + what, {x, ties(gen, {3, 4}, kBool)},
                       [](const Tensors& in) { return masked_select(in[0], in[1]); });
    expect_same_as_cpu("masked_select, transposed and broadcast mask " + what, {x, ties(gen, {1, 4}, kBool)},
                       [](const Tensors& in) { return masked_select(in[0].transpose(0, 1), in[1].transpose(0, 1)); });
    expect_same_as_cpu("concat and stack " + what, {x, x}, [](const Tensors& in) {
      return Tensors{concat({in[0], in[1]}, 1), stack({in[0], in[1]}, 0), concat({in[0], in[1]}, 0)};
    });
    expect_same_as_cpu("flip, roll and tile " + what, {x}, [](const Tensors& in) {
      return Tensors{flip(in[0], {1}), roll(in[0], 2, 1), tile(in[0], {2, 3})};
    });
    expect_same_as_cpu("pad " + what, {x}, [](const Tensors& in) {
      return Tensors{pad(in[0], {{1, 2}, {2, 3}}, PadMode::replicate), pad(in[0], {{1, 2}, {2, 3}}, PadMode::reflect)};
    });
  }
  expect_same_as_cpu("masked_select of nothing", {from_vector(std::vector<uint8_t>{0, 0, 0})},
                     [](const Tensors& in) { return masked_select(in[0], in[0] > 0); });
}

TEST(EmulatedIndex, SlabOpsOnViewsAndEmptyIndicesMatchTheCpuWithGradients) {
  Generator gen(6);
  const Tensor weights = rand({5, 3}, kFloat64, &gen);
  expect_same_as_cpu("embedding, repeated ids", {weights, ids({4, 4, 0, 4, 2, 4, 4, 1}, {2, 4})},
                     [](const Tensors& in) { return embedding(in[0], in[1]); }, Grads::yes);
  expect_same_as_cpu("embedding, no ids", {weights, ids({}, {0})},
                     [](const Tensors& in) { return embedding(in[0], in[1]); }, Grads::yes);
  expect_same_as_cpu("index_select, no ids", {weights, ids({}, {0})},
                     [](const Tensors& in) { return index_select(in[0], 0, in[1]); }, Grads::yes);
  expect_same_as_cpu("tile, pad and flip of views", {rand({2, 3, 4}, kFloat64, &gen)}, [](const Tensors& in) {
    return Tensors{tile(permute(in[0], {2, 0, 1}), {3, 1, 2}), pad(in[0], {{1, 1}, {0, 2}, {3, 0}}, PadMode::reflect),
                   flip(in[0], {0, 2})};
  }, Grads::yes);
  expect_same_as_cpu("concat of transposed views", {rand({4, 3}, kFloat64, &gen), rand({2, 3}, kFloat64, &gen)},
                     [](const Tensors& in) { return concat({in[0].transpose(0, 1), in[1].transpose(0, 1)}, 1); },
                     Grads::yes);
}

TEST(EmulatedIndex, OneHotFromEveryIdDtypeMatchesTheCpu) {
  for (DType id_dtype : {kInt64, kInt32, kUInt8})
    for (DType dtype : {kFloat32, kFloat64, kInt64, kBool, kUInt8})
      expect_same_as_cpu(std::string(dtype_name(id_dtype)) + " to " + dtype_name(dtype),
                         {cast(ids({3, 0, 1, 3, 2, 0}, {2, 3}), id_dtype)}, [&](const Tensors& in) {
                           return Tensors{one_hot(in[0], -1, dtype), one_hot(in[0], 6, dtype),
                                          one_hot(in[0].transpose(0, 1), 4, dtype)};
                         });
  expect_same_as_cpu("no ids", {ids({}, {0})}, [](const Tensors& in) { return one_hot(in[0], 3); });
  expect_same_as_cpu("0-d", {scalar_tensor(2, kInt64)}, [](const Tensors& in) { return one_hot(in[0], 4); });
}

}  // namespace
}  // namespace strata::testing
