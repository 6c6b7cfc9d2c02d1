// The CUDA backend's element-wise kernels (elementwise.cu), emulated, against the CPU's, beyond the
// conformance table's float64 cases: every unary and binary op on every dtype (and every pair of
// dtypes, for type promotion), broadcasting through strided views, in-place updates of a strided
// view, `where` on every dtype triple, NaN inputs, and the error messages of operands that do not
// fit. The kernels are called through their dispatch stubs, where no op layer checks first.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda/emulated_compare.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::testing {
namespace {

using dispatch::BinaryOp;
using dispatch::UnaryOp;

const DType kDtypes[] = {kFloat64, kFloat32, kInt64, kInt32, kUInt8, kBool};
constexpr int kUnaryOps = dispatch::kUnaryOpCount;
constexpr int kBinaryOps = dispatch::kBinaryOpCount;

// A tensor of `dtype` with a pattern of values from `seed`: negative, zero and positive (from 0
// for uint8), repeated values for the comparisons, and a NaN at element 5 when floating.
Tensor sample(const Shape& shape, DType dtype, int seed) {
  std::vector<double> values;
  for (int64_t i = 0; i < shape.numel(); ++i) {
    const int k = int((i * 7 + seed * 3) % 9) - 3;  // -3..5
    double x = k * 0.75 + (seed % 2) * 0.1;
    if (!is_floating(dtype)) x = dtype == kUInt8 ? k + 3 : k;
    if (dtype == kBool) x = k % 2 != 0;
    if (is_floating(dtype) && i == 5) x = NAN;
    values.push_back(x);
  }
  return cast(from_vector(values, shape), dtype);
}

std::string dtypes_label(std::initializer_list<DType> dtypes) {
  std::string label;
  for (DType dtype : dtypes) label += std::string(" ") + dtype_name(dtype);
  return label;
}

TEST(EmulatedElementwise, RunsTheCudaKernels) {
  install_emulated_cuda();
  STRATA_CUDA_ELEMENTWISE_STUBS(STRATA_EXPECT_CUDA_KERNEL)
}

TEST(EmulatedElementwise, EveryUnaryOpOnEveryDtypeMatchesTheCpu) {
  for (DType dtype : kDtypes)
    for (int i = 0; i < kUnaryOps; ++i) {
      const UnaryOp op = UnaryOp(i);
      const double a = op == UnaryOp::clamp ? -1 : op == UnaryOp::pow_scalar ? 1.5 : 0.2, b = 2;
      expect_same_as_cpu(dispatch::unary_name(op) + dtypes_label({dtype}), {sample({4, 3}, dtype, 1)},
                         [&](const Tensors& in) { return dispatch::unary(op, in[0].transpose(0, 1), a, b); });
    }
}

TEST(EmulatedElementwise, EveryBinaryOpOnEveryDtypePairMatchesTheCpu) {
  for (DType da : kDtypes)
    for (DType db : kDtypes)
      for (int i = 0; i < kBinaryOps; ++i) {
        const BinaryOp op = BinaryOp(i);
        const std::string what = dispatch::binary_name(op) + dtypes_label({da, db});
        // [4, 3, 1] against [2, 3], both transposed views: broadcast to [4, 3, 2].
        expect_same_as_cpu(what, {sample({4, 1, 3}, da, 1), sample({3, 2}, db, 2)}, [&](const Tensors& in) {
          return dispatch::binary(op, in[0].transpose(1, 2), in[1].transpose(0, 1));
        });
        expect_same_error(what + " shapes that do not broadcast", {sample({4, 1, 3}, da, 1), sample({5}, db, 2)},
                          [&](const Tensors& in) { return dispatch::binary(op, in[0], in[1]); });
      }
}

// op < 0 stands for add_scaled_inplace.
TEST(EmulatedElementwise, InPlaceOpsOnAStridedViewMatchTheCpu) {
  for (DType da : kDtypes)
    for (DType db : kDtypes)
      for (int op = -1; op < kBinaryOps; ++op) {
        const std::string what = (op < 0 ? "add_scaled" : dispatch::binary_name(BinaryOp(op))) + dtypes_label({da, db});
        // Updates rows 1..3 of a [5, 4] tensor through their transpose and returns the whole tensor:
        // the rows around the view must not change.
        const auto update = [&](const Tensors& in) {
          Tensor view = in[0].narrow(0, 1, 3).transpose(0, 1);
          if (op < 0)
            dispatch::add_scaled_inplace(view, in[1], -0.5);
          else
            dispatch::binary_inplace(BinaryOp(op), view, in[1]);
          return in[0];
        };
        expect_same_as_cpu(what + " by a row", {sample({5, 4}, da, 1), sample({3}, db, 2)}, update);
        expect_same_as_cpu(what + " by a column", {sample({5, 4}, da, 1), sample({4, 1}, db, 2)}, update);
        expect_same_error(what + " by a larger tensor", {sample({5, 4}, da, 1), sample({2, 4, 3}, db, 2)}, update);
      }
}

TEST(EmulatedElementwise, WhereOnEveryDtypeMatchesTheCpu) {
  for (DType dc : kDtypes)
    for (DType da : kDtypes)
      for (DType db : kDtypes)
        expect_same_as_cpu("where" + dtypes_label({dc, da, db}),
                           {sample({3, 1}, dc, 3), sample({4}, da, 1), sample({2, 1, 4}, db, 2)},
                           [](const Tensors& in) { return dispatch::where(in[0], in[1], in[2].transpose(0, 1)); });
  expect_same_error("where, shapes that do not broadcast",
                    {sample({3}, kBool, 1), sample({4}, kFloat64, 1), sample({4}, kFloat64, 1)},
                    [](const Tensors& in) { return dispatch::where(in[0], in[1], in[2]); });
}

}  // namespace
}  // namespace strata::testing
