// The CUDA backend on a real GPU (libstrata_cuda), against the CPU: every case of the op
// conformance table, outputs and gradients, one test per op, and Adam training steps. Skipped,
// saying why, where the process sees no GPU or Strata was built without CUDA (docs/cuda.md).
#include <gtest/gtest.h>

#include "dispatch/device_training.hpp"
#include "ops/conformance_runs.hpp"

namespace strata::testing {
namespace {

// A macro: GTEST_SKIP returns from the function it is written in, which must be the test.
#define STRATA_SKIP_WITHOUT_GPU()                 \
  if (!device_available(DeviceType::CUDA))        \
  GTEST_SKIP() << "no CUDA device: " << device_unavailable_reason(DeviceType::CUDA)

class CudaDevice : public ::testing::TestWithParam<std::string> {};

// float32 inputs would be compared with the CPU's oneDNN float32 (other summation orders);
// the cases are float64, where both sides compute exactly enough for 1e-9.
TEST_P(CudaDevice, MatchesTheCpu) {
  STRATA_SKIP_WITHOUT_GPU();
  const int ran = expect_op_matches_cpu(GetParam(), kCUDA, 1e-9);
  EXPECT_GT(ran, 0) << "no conformance case for " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Ops, CudaDevice, ::testing::ValuesIn(op_table_names()),
                         [](const auto& info) { return info.param; });

TEST(CudaTraining, AdamStepsMatchTheCpu) {
  STRATA_SKIP_WITHOUT_GPU();
  const auto on_cpu = adam_steps_on(kCPU, false);
  for (bool moved : {false, true}) {
    const auto on_gpu = adam_steps_on(kCUDA, moved);
    ASSERT_EQ(on_gpu.size(), on_cpu.size());
    for (size_t i = 0; i < on_cpu.size(); ++i)
      expect_values_near({on_gpu[i].begin(), on_gpu[i].end()}, {on_cpu[i].begin(), on_cpu[i].end()}, 1e-4, "weight");
  }
}

TEST(CudaMemory, CachesFreedBlocksAndCopiesBothWays) {
  STRATA_SKIP_WITHOUT_GPU();
  DeviceAllocator& memory = allocator_for(kCUDA);
  EXPECT_FALSE(memory.host_accessible());
  const Tensor host = arange(1000, {kFloat32, kCPU});
  { const Tensor first = host.to(kCUDA); }  // freed into the cache
  const AllocatorStats before = memory.stats();
  const Tensor on_gpu = host.to(kCUDA);
  EXPECT_EQ(memory.stats().cache_hits, before.cache_hits + 1);
  EXPECT_EQ(memory.stats().system_allocations, before.system_allocations);
  EXPECT_EQ(on_gpu.to(kCPU).to_vector<float>(), host.to_vector<float>());
  EXPECT_THROW(Tensor::empty({4}, kFloat32, Device{DeviceType::CUDA, 1}), Error);
}

TEST(CudaAvailability, NamesTheReasonWhenThereIsNoGpu) {
  if (device_available(DeviceType::CUDA)) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_FALSE(device_unavailable_reason(DeviceType::CUDA).empty());
  try {
    Tensor::empty({2}, kFloat32, kCUDA);
    ADD_FAILURE() << "a CUDA tensor was made without a GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device cuda:0 is not available: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::testing
