// Devices in the core: names, TensorOptions, device memory and copies between devices.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/core/device_copy.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(DeviceTest, NamesSayTypeAndIndex) {
  EXPECT_EQ(kCPU.str(), "cpu");
  EXPECT_EQ(kMeta.str(), "meta");
  EXPECT_EQ((Device{DeviceType::CUDA, 1}.str()), "cuda:1");
  EXPECT_EQ((Device{DeviceType::Custom, 2}.str()), "custom:2");
}

TEST(DeviceTest, ParsesWhatStrWrites) {
  for (const Device d : {kCPU, kMeta, kCUDA, Device{DeviceType::CUDA, 12}}) EXPECT_EQ(Device::parse(d.str()), d);
  EXPECT_EQ(Device::parse("cuda"), kCUDA);
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:99999999", "CPU", ""})
    testing::expect_error([&] { Device::parse(bad); }, {"unknown device", "expected cpu, cuda, cuda:N or meta"});
}

// An empty tensor is contiguous whatever its strides (as in PyTorch), so it copies between
// devices: topk(x, 0) on a device gave [3, 0] with strides [1, 1], which could not come back.
TEST(DeviceTest, AnEmptyTensorWithAnyStridesIsContiguousAndCopies) {
  const Tensor x = zeros({3, 0}).as_strided({3, 0}, {1, 1}, 0);
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_EQ(copy_contiguous_to(x, kCPU).shape(), x.shape());
  EXPECT_FALSE(zeros({3, 2}).as_strided({3, 2}, {1, 3}, 0).is_contiguous());
}

TEST(DeviceTest, ADeviceWithoutMemoryIsRefusedByName) {
  testing::expect_error([] { Tensor::empty({2}, kFloat32, Device{DeviceType::CUDA, 3}); }, {"cuda:3", "not available"});
}

TEST(DeviceTest, FactoriesTakeADtypeADeviceOrBoth) {
  EXPECT_EQ(zeros({2}, kInt64).dtype(), kInt64);
  EXPECT_TRUE(zeros({2}, kMeta).is_meta());
  const Tensor t = ones({2, 3}, {kFloat64, kMeta});
  EXPECT_EQ(t.dtype(), kFloat64);
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(t.options().dtype, kFloat64);
  // *_like keep the device as well as the dtype.
  EXPECT_TRUE(zeros_like(t).is_meta());
  EXPECT_EQ(full_like(t, 2).dtype(), kFloat64);
  EXPECT_TRUE(arange(4, {kInt64, kMeta}).is_meta());
}

TEST(DeviceTest, ToADeviceCopiesOnlyWhenItMust) {
  const Tensor x = tensor({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  EXPECT_TRUE(x.to(kCPU).is_same(x));
  const Tensor m = x.transpose(0, 1).to(kMeta);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.shape(), Shape({2, 2}));
  EXPECT_THROW(m.to(kCPU), NoDataError);
}

TEST(DeviceTest, ContiguousCopiesRefuseStridedSources) {
  const Tensor x = tensor({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  EXPECT_EQ(copy_contiguous_to(x, kCPU).to_vector<float>(), x.to_vector<float>());
  testing::expect_error([&] { copy_contiguous_to(x.transpose(0, 1), kCPU); }, {"contiguous", "[1, 2]"});
}

}  // namespace
}  // namespace strata
