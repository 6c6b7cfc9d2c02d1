// The CUDA backend on a real GPU (libstrata_cuda), against the CPU: every case of the op
// conformance table, outputs and gradients, one test per op, and Adam training steps. Skipped,
// saying why, where the process sees no GPU or Strata was built without CUDA (docs/cuda.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cuda/emulated_compare.hpp"
#include "cuda/float32_conv_cases.hpp"
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

INSTANTIATE_TEST_SUITE_P(Ops, CudaDevice, ::testing::ValuesIn(conformance_op_names()),
                         [](const auto& info) { return info.param; });

// float32 convolutions, which run on cuDNN where it is loaded (the table's float64 cases run on
// the own kernels): outputs and gradients against the CPU.
TEST(CudaConv, Float32MatchesTheCpu) {
  STRATA_SKIP_WITHOUT_GPU();
  Generator gen(31);
  for (const ConvCase& c : float32_conv_cases(gen)) {
    SCOPED_TRACE(c.what);
    const RunResult got = run_on(kCUDA, c.inputs, c.run, Grads::yes), want = run_on(kCPU, c.inputs, c.run, Grads::yes);
    EXPECT_EQ(got.error, want.error);
    ASSERT_EQ(got.outputs.size(), want.outputs.size());
    for (size_t i = 0; i < want.outputs.size(); ++i) expect_same_output(got.outputs[i], want.outputs[i], 1e-4);
  }
}

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

// Class ids are checked on the GPU without a wait; the first read from the device raises the
// error in the CPU's words, once, and the device goes on working.
TEST(CudaLoss, ClassIdsOutOfRangeAreRaisedAtTheNextRead) {
  STRATA_SKIP_WITHOUT_GPU();
  const Tensor logits = randn({4, 3}).to(kCUDA);
  const Tensor bad = from_vector(std::vector<int64_t>{0, 2, 5, 7}).to(kCUDA);
  Tensor loss = cross_entropy(logits, bad);  // no error yet: nothing waited for the GPU
  try {
    (void)loss.item_double();
    ADD_FAILURE() << "the bad class id was not reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cross_entropy: target class id 5 at position 2 is out of range [0, 3)"),
              std::string::npos)
        << e.what();
  }
  const Tensor good = from_vector(std::vector<int64_t>{0, 2, 1, 1}).to(kCUDA);
  EXPECT_NEAR(cross_entropy(logits, good).item_double(), cross_entropy(logits.to(kCPU), good.to(kCPU)).item_double(),
              1e-5);
}

// The point-cloud searches at PointNet++'s sizes (many blocks per launch): the CPU's indices.
// Clouds whose distances round alike everywhere: float32 on a grid (exact), float64 at random
// (the GPU may fuse a multiply-add where the CPU does not; float64 leaves no near-tie for it).
TEST(CudaPointCloud, SearchesAtPointNetSizesMatchTheCpu) {
  STRATA_SKIP_WITHOUT_GPU();
  Generator gen(44);
  const Tensor random = uniform({16, 1024, 3}, -1, 1, kFloat64, &gen);
  for (const Tensor& points : {cast(round(random * 4.0) / 4.0, kFloat32), random}) {
    SCOPED_TRACE(dtype_name(points.dtype()));
    const Tensor queries = points.narrow(1, 0, 512), dp = points.to(kCUDA), dq = queries.to(kCUDA);
    EXPECT_EQ(farthest_point_sample(dp, 512).to_vector<int64_t>(),
              farthest_point_sample(points, 512).to_vector<int64_t>());
    EXPECT_EQ(knn(dq, dp, 32).to_vector<int64_t>(), knn(queries, points, 32).to_vector<int64_t>());
    EXPECT_EQ(ball_query(dq, dp, 0.2, 32).to_vector<int64_t>(),
              ball_query(queries, points, 0.2, 32).to_vector<int64_t>());
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

// Uploads go through a ring of pinned buffers without waiting for the GPU: each must arrive as it
// was when uploaded, though the host overwrites its source at once and uploads more than the ring
// holds, and a large upload (past the ring's size limit) too.
TEST(CudaMemory, UploadsArriveAsTheyWereThoughTheSourceChangesAtOnce) {
  STRATA_SKIP_WITHOUT_GPU();
  std::vector<float> source(300000);
  std::vector<Tensor> uploaded;
  for (int k = 0; k < 11; ++k) {
    std::fill(source.begin(), source.end(), static_cast<float>(k));
    uploaded.push_back(from_vector(source).to(kCUDA) * 2.0);  // queued work between the uploads
  }
  const Tensor large = full({20 << 20}, 3.0, {kFloat32, kCPU}).to(kCUDA);
  for (int k = 0; k < 11; ++k) {
    const std::vector<float> back = uploaded[k].to_vector<float>();
    EXPECT_EQ(std::count(back.begin(), back.end(), 2.0f * k), static_cast<long>(back.size())) << "upload " << k;
  }
  EXPECT_EQ(sum(large).item_double(), 3.0 * (20 << 20));
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
