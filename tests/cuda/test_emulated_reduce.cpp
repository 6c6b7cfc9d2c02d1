// The CUDA backend's reduction kernels (reduce.cu, softmax.cu), emulated, against the CPU's, beyond
// the conformance table's small float64 cases: sum / prod / max / min over every mask of axes, with
// and without keepdim, on every dtype, contiguous and strided; ranges long enough for the two-pass
// path (one output, a few, long rows and long columns); NaN and infinities; empty and 0-d
// tensors; arg-max / arg-min, cumsum and softmax (forward and backward) on every dtype, axis and
// layout. The kernels are called through their dispatch stubs, so dtypes the ops would refuse
// first are compared too (the same error, or the same result).
#include <gtest/gtest.h>

#include <limits>

#include "cuda/emulated_compare.hpp"
#include "strata/dispatch/reduce.hpp"
#include "strata/dispatch/softmax.hpp"

namespace strata::testing {
namespace {

using dispatch::ReduceOp;

const DType kDtypes[] = {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool};
const ReduceOp kReduceOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min};
const char* name(ReduceOp op) {
  static const char* const names[] = {"sum", "prod", "max", "min"};
  return names[int(op)];
}

// How the kernels see an input: as it is, transposed (first and last axes) or narrowed (from row 1).
enum class Layout { contiguous, transposed, narrowed };
const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::narrowed};
const char* name(Layout layout) {
  static const char* const names[] = {"", " transposed", " narrowed"};
  return names[int(layout)];
}

// Small integers with ties (and for floats a fraction), so that sums and products are near exact,
// from 0 for uint8; a NaN at element nan_at when it is given. Transposed, the tensor is made with
// its first and last axes swapped, so that the view has `shape`.
Tensor sample(Shape shape, DType dtype, Layout layout = Layout::contiguous, uint64_t seed = 1, int64_t nan_at = -1) {
  if (layout == Layout::transposed) std::swap(shape[0], shape[shape.size() - 1]);
  Generator gen(seed);
  Tensor x = round(randn(shape, {kFloat64}, &gen) * 2.0);
  if (is_floating(dtype)) x = x + rand(shape, {kFloat64}, &gen) * 0.25;
  if (dtype == kUInt8) x = abs(x);
  if (nan_at >= 0) {
    std::vector<double> values = x.to_vector<double>();
    values[nan_at % values.size()] = std::numeric_limits<double>::quiet_NaN();
    x = from_vector(values, shape);
  }
  return x.to(dtype);
}

Tensor viewed(const Tensor& x, Layout layout) {
  if (layout == Layout::transposed) return x.transpose(0, x.dim() - 1);
  if (layout == Layout::narrowed) return x.narrow(0, 1, x.shape()[0] - 1);
  return x;
}

std::string mask_label(const std::vector<bool>& mask) {
  std::string label = " mask ";
  for (bool m : mask) label += m ? '1' : '0';
  return label;
}

void expect_reduce_same_as_cpu(const std::string& what, ReduceOp op, const Tensor& x, Layout layout,
                               const std::vector<bool>& mask, bool keepdim) {
  expect_same_as_cpu(name(op) + (" " + what) + name(layout) + mask_label(mask) + (keepdim ? " keepdim" : ""), {x},
                     [&](const Tensors& in) { return dispatch::reduce(op, viewed(in[0], layout), mask, keepdim); });
}

TEST(EmulatedReduce, RunsTheCudaKernels) {
  install_emulated_cuda();
  STRATA_CUDA_REDUCE_STUBS(STRATA_EXPECT_CUDA_KERNEL)
}

TEST(EmulatedReduce, EveryMaskOfAxesOnEveryDtypeAndLayoutMatchesTheCpu) {
  const std::vector<std::vector<bool>> masks = {{false, false, false}, {false, false, true}, {false, true, false},
                                                {false, true, true},   {true, false, false},  {true, false, true},
                                                {true, true, false},   {true, true, true}};
  for (DType dtype : kDtypes)
    for (ReduceOp op : kReduceOps)
      for (Layout layout : kLayouts)
        for (const auto& mask : masks)
          for (bool keepdim : {false, true})
            expect_reduce_same_as_cpu(dtype_name(dtype), op, sample({3, 4, 5}, dtype, layout), layout, mask, keepdim);
}

// Long ranges reduce in two passes (chunks, then the chunks' results): one output of 21000 values,
// three rows of 7000, four columns of 5000 (read along and across their stride), and two axes of a
// narrowed view. Products of so many values overflow, so they are left to the next test.
TEST(EmulatedReduce, LongRangesInTwoPassesMatchTheCpu) {
  for (DType dtype : kDtypes)
    for (ReduceOp op : kReduceOps) {
      if (op == ReduceOp::prod && dtype != kBool) continue;
      const std::string what = std::string("long ") + dtype_name(dtype);
      const Layout plain = Layout::contiguous;
      expect_reduce_same_as_cpu(what, op, sample({300, 70}, dtype), plain, {true, true}, false);
      expect_reduce_same_as_cpu(what, op, sample({3, 7000}, dtype, plain, 2), plain, {false, true}, true);
      expect_reduce_same_as_cpu(what, op, sample({5000, 4}, dtype, Layout::transposed, 3), Layout::transposed,
                                {false, true}, false);
      expect_reduce_same_as_cpu(what, op, sample({5000, 4}, dtype, plain, 3), plain, {true, false}, false);
      expect_reduce_same_as_cpu(what, op, sample({64, 3, 50}, dtype, Layout::narrowed, 4), Layout::narrowed,
                                {true, false, true}, true);
    }
}

TEST(EmulatedReduce, LongProductsNearOneMatchTheCpu) {
  for (DType dtype : {kFloat32, kFloat64}) {
    Generator gen(7);
    expect_reduce_same_as_cpu("near 1", ReduceOp::prod, rand({4, 3000}, {dtype}, &gen) * 0.02 + 0.99,
                              Layout::contiguous, {true, true}, false);
  }
}

// A NaN first, inside the first row, last (59 of [3, 20]) or far into a long row (1000; 40 of
// [3, 20]), reduced along rows, columns and the whole tensor, in one pass ([3, 20]) and in two
// ([5, 3000]).
TEST(EmulatedReduce, NaNsMatchTheCpu) {
  for (DType dtype : {kFloat32, kFloat64})
    for (ReduceOp op : kReduceOps)
      for (int64_t nan_at : {0, 7, 59, 1000})
        for (const Shape& shape : {Shape{3, 20}, Shape{5, 3000}}) {
          const Tensor x = sample(shape, dtype, Layout::contiguous, 5, nan_at);
          const std::string what = "NaN at " + std::to_string(nan_at) + " " + dtype_name(dtype) + shape.str();
          for (const std::vector<bool>& mask : {std::vector<bool>{false, true}, {true, true}, {true, false}})
            expect_reduce_same_as_cpu(what, op, x, Layout::contiguous, mask, false);
        }
}

TEST(EmulatedReduce, EmptyZeroDimAndExpandedTensorsMatchTheCpu) {
  for (DType dtype : kDtypes)
    for (ReduceOp op : kReduceOps) {
      const std::string what = std::string(dtype_name(dtype)) + " ";
      const Tensor empty = sample({0, 3}, dtype);
      expect_reduce_same_as_cpu(what + "empty axis", op, empty, Layout::contiguous, {true, false}, false);
      expect_reduce_same_as_cpu(what + "empty, all", op, empty, Layout::contiguous, {true, true}, true);
      expect_reduce_same_as_cpu(what + "empty output", op, empty, Layout::contiguous, {false, true}, false);
      expect_reduce_same_as_cpu(what + "0-d", op, sample({1}, dtype).reshape({}), Layout::contiguous, {}, false);
      expect_same_as_cpu(name(op) + (" " + what) + "expanded", {sample({3, 1}, dtype)}, [&](const Tensors& in) {
        return dispatch::reduce(op, in[0].expand({3, 200}), {false, true}, false);
      });
    }
}

TEST(EmulatedArgReduce, EveryAxisDtypeAndLayoutMatchesTheCpu) {
  for (DType dtype : kDtypes)
    for (bool is_max : {true, false})
      for (Layout layout : kLayouts)
        for (int axis = 0; axis < 3; ++axis)
          for (bool keepdim : {false, true})
            expect_same_as_cpu(std::string(is_max ? "argmax " : "argmin ") + dtype_name(dtype) + name(layout) +
                                   " axis " + std::to_string(axis) + (keepdim ? " keepdim" : ""),
                               {sample({3, 4, 5}, dtype, layout)}, [&](const Tensors& in) {
                                 return dispatch::arg_reduce(is_max, viewed(in[0], layout), axis, keepdim);
                               });
}

TEST(EmulatedArgReduce, NaNsAndEmptyTensorsMatchTheCpu) {
  for (DType dtype : {kFloat32, kFloat64})
    for (bool is_max : {true, false})
      for (int64_t nan_at : {0, 3, 19})
        expect_same_as_cpu(std::string(is_max ? "argmax " : "argmin ") + dtype_name(dtype) + " NaN at " +
                               std::to_string(nan_at),
                           {sample({3, 20}, dtype, Layout::contiguous, 5, nan_at)},
                           [&](const Tensors& in) { return dispatch::arg_reduce(is_max, in[0], 1, false); });
  for (int axis : {0, 1})
    expect_same_as_cpu("empty, axis " + std::to_string(axis), {sample({0, 3}, kFloat64)},
                       [&](const Tensors& in) { return dispatch::arg_reduce(true, in[0], axis, false); });
}

TEST(EmulatedCumsum, EveryAxisDtypeAndLayoutMatchesTheCpu) {
  for (DType dtype : kDtypes)
    for (bool reverse : {false, true})
      for (Layout layout : kLayouts)
        for (int axis = 0; axis < 3; ++axis)
          expect_same_as_cpu(std::string(dtype_name(dtype)) + (reverse ? " reverse" : "") + name(layout) + " axis " +
                                 std::to_string(axis),
                             {sample({3, 4, 5}, dtype, layout)},
                             [&](const Tensors& in) { return dispatch::cumsum(viewed(in[0], layout), axis, reverse); });
}

TEST(EmulatedCumsum, WrappingEmptyAndExpandedTensorsMatchTheCpu) {
  expect_same_as_cpu("uint8 sums past 255", {full({300}, 3, {kUInt8})},
                     [](const Tensors& in) { return dispatch::cumsum(in[0], 0, false); });
  for (bool reverse : {false, true})
    expect_same_as_cpu("empty", {sample({0, 3}, kFloat64)},
                       [&](const Tensors& in) { return dispatch::cumsum(in[0], reverse ? 1 : 0, reverse); });
  expect_same_as_cpu("expanded", {sample({3, 1}, kFloat64)},
                     [](const Tensors& in) { return dispatch::cumsum(in[0].expand({3, 5}), 1, false); });
}

// Backward takes the output gradient (in[0], in the layout) and the forward's output of in[1].
TEST(EmulatedSoftmax, EveryAxisDtypeAndLayoutMatchesTheCpu) {
  for (DType dtype : kDtypes)
    for (bool log : {false, true})
      for (Layout layout : kLayouts)
        for (int axis = 0; axis < 3; ++axis) {
          const std::string what = std::string(log ? "log_softmax " : "softmax ") + dtype_name(dtype) + name(layout) +
                                   " axis " + std::to_string(axis);
          expect_same_as_cpu(what, {sample({3, 4, 5}, dtype, layout)}, [&](const Tensors& in) {
            return dispatch::softmax_forward(viewed(in[0], layout), axis, log);
          });
          const Tensor grad = sample({3, 4, 5}, dtype, layout, 9);
          Generator gen(3);
          const Tensor logits = randn(viewed(grad, layout).shape(), {dtype == kFloat32 ? kFloat32 : kFloat64}, &gen);
          expect_same_as_cpu(what + " backward", {grad, logits}, [&](const Tensors& in) {
            const Tensor y = dispatch::softmax_forward(in[1], axis, log);
            return dispatch::softmax_backward(viewed(in[0], layout), y, axis, log);
          });
        }
}

TEST(EmulatedSoftmax, InfinitiesNaNsLongRowsAndExpandedGradientsMatchTheCpu) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Rows: all -inf, some -inf, a NaN, +inf, far apart.
  const Tensor specials =
      from_vector(std::vector<double>{-inf, -inf, -inf, 1, 2, -inf, 1, nan, 2, 1, inf, 2, 1000, -1000, 3}, {5, 3});
  Generator gen(1);
  const Tensor long_rows = randn({4, 5000}, {kFloat32}, &gen) * 5;
  for (bool log : {false, true}) {
    const auto along_rows = [&](const Tensors& in) { return dispatch::softmax_forward(in[0], 1, log); };
    expect_same_as_cpu("special values", {specials}, along_rows);
    // Sums of 5000 float32 exponentials, in another order than the CPU's: up to about 8e-6 apart.
    expect_same_as_cpu("long rows", {long_rows}, along_rows, Grads::no, 2e-5);
  }
  expect_same_as_cpu("empty", {sample({0, 3}, kFloat64)},
                     [](const Tensors& in) { return dispatch::softmax_forward(in[0], 1, false); });
  expect_same_as_cpu("expanded gradient", {ones({1, 5}, {kFloat32}), randn({4, 5}, {kFloat64}, &gen)},
                     [](const Tensors& in) {
                       const Tensor y = dispatch::softmax_forward(in[1], 1, false);
                       return dispatch::softmax_backward(in[0].expand({4, 5}), y, 1, false);
                     });
}

}  // namespace
}  // namespace strata::testing
