// The CUDA backend's own kernels, compiled for the host (emulated_backend.hpp), against the CPU:
// every case of the op conformance table, outputs and gradients, one test per op. This is how the
// kernels' index arithmetic and formulas are checked on machines without a GPU; the same
// comparison on a real GPU is test_cuda_device.cpp.
#include <gtest/gtest.h>

#include "cuda/emulated_backend.hpp"
#include "dispatch/device_training.hpp"
#include "ops/conformance_runs.hpp"

namespace strata::testing {
namespace {

class EmulatedCuda : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { install_emulated_cuda(); }
};

TEST_P(EmulatedCuda, MatchesTheCpu) {
  const int ran = expect_op_matches_cpu(GetParam(), kEmulatedCuda, 1e-9);
  EXPECT_GT(ran, 0) << "no conformance case for " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Ops, EmulatedCuda, ::testing::ValuesIn(conformance_op_names()),
                         [](const auto& info) { return info.param; });

TEST(EmulatedCudaTraining, AdamStepsMatchTheCpu) {
  install_emulated_cuda();
  const auto on_cpu = adam_steps_on(kCPU, false);
  const auto on_device = adam_steps_on(kEmulatedCuda, false);
  ASSERT_EQ(on_device.size(), on_cpu.size());
  for (size_t i = 0; i < on_cpu.size(); ++i)
    expect_values_near({on_device[i].begin(), on_device[i].end()}, {on_cpu[i].begin(), on_cpu[i].end()}, 1e-5,
                       "weight");
  // Moving a model between steps takes its weights, gradients and optimizer state along.
  const auto moved = adam_steps_on(kEmulatedCuda, true);
  for (size_t i = 0; i < on_cpu.size(); ++i)
    expect_values_near({moved[i].begin(), moved[i].end()}, {on_cpu[i].begin(), on_cpu[i].end()}, 1e-5, "weight");
}

}  // namespace
}  // namespace strata::testing

namespace strata::testing {
namespace {

// item() and to_vector() of a view copy the part of the storage the view reaches, not all of it
// (a GPU read of one weight of a large matrix is a few bytes).
TEST(EmulatedDevice, HostReadsCopyOnlyWhatTheViewReaches) {
  install_emulated_cuda();
  const Tensor matrix = arange(200 * 300, {kFloat32, kCPU}).reshape({200, 300}).to(kEmulatedCuda);
  size_t before = emulated_bytes_to_host();
  EXPECT_EQ(matrix.narrow(0, 7, 1).narrow(1, 11, 1).item_double(), 7 * 300 + 11);
  EXPECT_EQ(emulated_bytes_to_host() - before, sizeof(float));
  before = emulated_bytes_to_host();
  const std::vector<float> column = matrix.narrow(0, 10, 5).narrow(1, 4, 1).to_vector<float>();
  EXPECT_EQ(column, (std::vector<float>{3004, 3304, 3604, 3904, 4204}));
  EXPECT_EQ(emulated_bytes_to_host() - before, (4 * 300 + 1) * sizeof(float));
  // A transposed view reaches the same span, in another order.
  const std::vector<float> corner = matrix.narrow(0, 0, 2).narrow(1, 0, 2).transpose(0, 1).to_vector<float>();
  EXPECT_EQ(corner, (std::vector<float>{0, 300, 1, 301}));
}

}  // namespace
}  // namespace strata::testing
