// The cuBLAS matmul wrapper (src/kernels/cuda/cublas_matmul.cpp) on the emulated device, with the
// host stand-in for cuBLAS (cublas_standin.hpp): row-major, transposed, batched, broadcast-batch
// and strided operands, with and without a bias, float32 and float64, outputs and gradients (whose
// products take transposed views) against the CPU. A swapped operand, a wrong transpose flag,
// leading dimension or batch stride gives other numbers or a refused call here.
#include <gtest/gtest.h>

#include "cuda/cublas_standin.hpp"
#include "cuda/emulated_compare.hpp"

namespace strata::testing {
namespace {

class CublasStandinOn {
 public:
  CublasStandinOn() { use_cublas_standin(true); }
  ~CublasStandinOn() { use_cublas_standin(false); }
};

TEST(EmulatedCublas, ProductsMatchTheCpuThroughTheWrapper) {
  install_emulated_cuda();
  STRATA_EXPECT_CUDA_KERNEL(matmul3d);
  Generator gen(41);
  const CublasStandinOn standin;
  for (DType dtype : {kFloat64, kFloat32}) {
    auto r = [&](const Shape& s) { return cast(rand64(gen, s, -1, 1), dtype); };
    const double tol = dtype == kFloat64 ? 1e-12 : 1e-5;
    const int before = cublas_standin_runs();
    expect_same_as_cpu("row-major", {r({5, 7}), r({7, 3})}, [](const Tensors& t) { return matmul(t[0], t[1]); },
                       Grads::yes, tol);
    expect_same_as_cpu("transposed operands", {r({7, 5}), r({3, 7})},
                       [](const Tensors& t) { return matmul(t[0].transpose(0, 1), t[1].transpose(0, 1)); },
                       Grads::yes, tol);
    expect_same_as_cpu("batched", {r({4, 5, 7}), r({4, 7, 3})}, [](const Tensors& t) { return matmul(t[0], t[1]); },
                       Grads::yes, tol);
    expect_same_as_cpu("one matrix for every batch", {r({4, 5, 7}), r({7, 3})},
                       [](const Tensors& t) { return matmul(t[0], t[1]); }, Grads::yes, tol);
    expect_same_as_cpu("strided rows (a column slice)", {r({5, 12}), r({7, 3})},
                       [](const Tensors& t) { return matmul(t[0].narrow(1, 2, 7), t[1]); }, Grads::yes, tol);
    expect_same_as_cpu("every other column (copied first)", {r({5, 14}), r({7, 3})},
                       [](const Tensors& t) { return matmul(t[0].as_strided({5, 7}, {14, 2}, 0), t[1]); },
                       Grads::yes, tol);
    expect_same_as_cpu("linear with a bias", {r({6, 4}), r({4, 5}), r({5})},
                       [](const Tensors& t) { return linear(t[0], t[1], t[2]); }, Grads::yes, tol);
    expect_same_as_cpu("one row, one column", {r({1, 9}), r({9, 1})},
                       [](const Tensors& t) { return matmul(t[0], t[1]); }, Grads::yes, tol);
    EXPECT_GT(cublas_standin_runs() - before, 16) << "products went through the stand-in";
  }
}

TEST(EmulatedCublas, EmptyInnerSizesRunOnTheOwnKernel) {
  Generator gen(42);
  const CublasStandinOn standin;
  const int before = cublas_standin_runs();
  expect_same_as_cpu("k = 0", {rand64(gen, {3, 0}), rand64(gen, {0, 4})},
                     [](const Tensors& t) { return matmul(t[0], t[1]); });
  EXPECT_EQ(cublas_standin_runs(), before);
}

}  // namespace
}  // namespace strata::testing
