// The dispatch stub: it runs the kernel of the device the tensors are on, says which family and
// device lack a kernel, and refuses tensors on two devices.
#include <gtest/gtest.h>

#include "dispatch/counting_backend.hpp"
#include "support/expect_error.hpp"
#include "strata/dispatch/stubs.hpp"
#include "strata/strata.hpp"

namespace strata::testing {
namespace {

Tensor negate_on_cpu(const Tensor& x) { return neg(x); }

TEST(DispatchStub, RunsTheKernelOfTheTensorsDevice) {
  dispatch::Stub<Tensor(const Tensor&)> probe{"probe"};
  probe.set(DeviceType::CPU, &negate_on_cpu);
  EXPECT_TRUE(probe.supports(DeviceType::CPU));
  EXPECT_FALSE(probe.supports(DeviceType::CUDA));
  EXPECT_EQ(probe(tensor({1.0f, -2.0f})).to_vector<float>(), std::vector<float>({-1.0f, 2.0f}));
}

TEST(DispatchStub, AMissingKernelNamesTheFamilyAndTheDevice) {
  CountingBackend::install();
  dispatch::Stub<Tensor(const Tensor&)> probe{"probe"};
  probe.set(DeviceType::CPU, &negate_on_cpu);
  expect_error([&] { probe(zeros({2}, kCounting)); }, {"probe", "custom:0", "no kernel"});
  expect_error([&] { probe.on(Device{DeviceType::CUDA, 1}, tensor({1.0f})); }, {"probe", "cuda:1"});
  // On the meta device the error is a NoDataError, which static models catch to probe with data.
  EXPECT_THROW(probe(Tensor::empty({2}, kFloat32, kMeta)), NoDataError);
}

TEST(DispatchStub, TensorsOnTwoDevicesAreRefusedNamingBoth) {
  CountingBackend::install();
  const Tensor on_cpu = ones({2}), elsewhere = ones({2}, kCounting);
  expect_error([&] { add(on_cpu, elsewhere); }, {"cpu", "custom:0", "one device"});
  expect_error([&] { concat({on_cpu, elsewhere}, 0); }, {"concat", "cpu", "custom:0"});
}

TEST(DispatchStub, AMetaTensorMakesTheCallMeta) {
  const Tensor y = add(ones({2, 3}), Tensor::empty({2, 3}, kFloat32, kMeta));
  EXPECT_TRUE(y.is_meta());
  // Writing a meta tensor's values into real data is refused.
  Tensor target = ones({2, 3});
  EXPECT_THROW(add_(target, Tensor::empty({2, 3}, kFloat32, kMeta)), NoDataError);
}

TEST(DispatchStub, TheCpuBackendImplementsEveryFamily) {
#define STRATA_EXPECT_CPU(name) EXPECT_TRUE(dispatch::name.supports(DeviceType::CPU)) << #name;
  STRATA_DISPATCH_STUBS(STRATA_EXPECT_CPU)
#undef STRATA_EXPECT_CPU
}

TEST(DispatchStub, TheMetaBackendLeavesOutWhatNeedsData) {
  EXPECT_TRUE(dispatch::matmul3d.supports(DeviceType::Meta));
  EXPECT_TRUE(dispatch::conv_forward.supports(DeviceType::Meta));
  EXPECT_FALSE(dispatch::channel_mean_var.supports(DeviceType::Meta));
  EXPECT_FALSE(dispatch::adam_step.supports(DeviceType::Meta));
  EXPECT_FALSE(dispatch::true_positions.supports(DeviceType::Meta));
}

}  // namespace
}  // namespace strata::testing
