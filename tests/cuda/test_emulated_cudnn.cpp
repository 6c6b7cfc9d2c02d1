// The cuDNN convolution wrapper (src/kernels/cuda/cudnn_conv.cpp) on the emulated device, with the
// host stand-in for cuDNN (cudnn_standin.hpp) in place of the library: float32 convolutions in 1,
// 2 and 3 dimensions with strides, dilations, groups, symmetric padding, bias and fused relu,
// outputs and gradients against the CPU. The stand-in refuses descriptors that disagree, ranks a
// failing algorithm first and overwrites its workspace, so a wrong layout, operand order, filter
// permutation or workspace size fails here. Cases cuDNN is not given (asymmetric padding,
// float64) must still run, on the own kernels.
#include <gtest/gtest.h>

#include "cuda/cudnn_standin.hpp"
#include "cuda/float32_conv_cases.hpp"
#include "cuda/emulated_compare.hpp"

namespace strata::testing {
namespace {

class StandinOn {
 public:
  StandinOn() { use_cudnn_standin(true); }
  ~StandinOn() { use_cudnn_standin(false); }
};

TEST(EmulatedCudnn, ConvolutionsMatchTheCpuThroughTheWrapper) {
  install_emulated_cuda();
  STRATA_EXPECT_CUDA_KERNEL(conv_forward);
  Generator gen(31);
  const StandinOn standin;
  for (const ConvCase& c : float32_conv_cases(gen)) {
    const int before = cudnn_standin_runs();
    expect_same_as_cpu(c.what, c.inputs, c.run, Grads::yes, 1e-4);
    // forward, backward data and backward filter, all three through the stand-in
    EXPECT_EQ(cudnn_standin_runs() - before, 3) << c.what;
  }
}

TEST(EmulatedCudnn, CasesCudnnIsNotGivenRunOnTheOwnKernels) {
  Generator gen(32);
  auto rand32 = [&](const Shape& shape) { return cast(rand64(gen, shape, -1, 1), kFloat32); };
  const StandinOn standin;
  const int before = cudnn_standin_runs();
  expect_same_as_cpu("asymmetric padding", {rand32({2, 6, 6, 2}), rand32({2, 2, 2, 3})},
                     [](const Tensors& t) { return conv2d(t[0], t[1], Tensor(), {.padding = Padding::same()}); },
                     Grads::yes, 1e-4);
  expect_same_as_cpu("float64", {rand64(gen, {2, 6, 6, 2}), rand64(gen, {3, 3, 2, 3})},
                     [](const Tensors& t) { return conv2d(t[0], t[1]); }, Grads::yes);
  EXPECT_EQ(cudnn_standin_runs(), before);
}

TEST(EmulatedCudnn, OwnWeightGradientSplitOverTheBatchMatchesTheCpu) {
  // Many (sample, position) rows per weight: the own kernel's weight gradient is summed in parts
  // (conv.cu), whose order must not change the result beyond rounding.
  Generator gen(33);
  expect_same_as_cpu("long rows, few weights", {rand64(gen, {16, 20, 20, 2}), rand64(gen, {3, 3, 2, 2})},
                     [](const Tensors& t) { return conv2d(t[0], t[1]); }, Grads::yes);
}

}  // namespace
}  // namespace strata::testing
