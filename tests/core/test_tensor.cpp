#include <gtest/gtest.h>

#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(TensorTest, CopiesShareStorageAndCloneCopies) {
  Tensor a = zeros({2, 3});
  Tensor b = a;  // shares
  Tensor c = a.clone();
  fill_(b, 7);
  EXPECT_EQ(a.to_vector<float>()[4], 7.0f);
  EXPECT_EQ(c.to_vector<float>()[4], 0.0f);
}

TEST(TensorTest, ViewsShareDataWithoutCopy) {
  Tensor a = arange(0, 24, 1, kFloat32).reshape({2, 3, 4});
  Tensor t = a.transpose(0, 2);
  EXPECT_EQ(t.shape(), Shape({4, 3, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.impl()->storage, a.impl()->storage);
  // t[1][2][1] == a[1][2][1] = 1*12 + 2*4 + 1
  EXPECT_EQ(t.select(0, 1).select(0, 2).select(0, 1).item<float>(), 21.0f);
  Tensor s = slice(a, 2, 1, 4, 2);  // columns 1 and 3
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23}));
  Tensor e = expand(tensor({1.0f, 2.0f}, {2, 1}), {2, 3});
  EXPECT_EQ(e.strides()[1], 0);
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(unsqueeze(a, 1).shape(), Shape({2, 1, 3, 4}));
  EXPECT_EQ(squeeze(unsqueeze(a, 1), 1).shape(), a.shape());
  EXPECT_EQ(narrow(a, 1, 1, 2).shape(), Shape({2, 2, 4}));
  EXPECT_EQ(flatten(a, 1).shape(), Shape({2, 12}));
}

TEST(TensorTest, ReshapeOfNonContiguousCopiesAndViewRefuses) {
  Tensor a = arange(0, 6, 1, kFloat32).reshape({2, 3}).transpose(0, 1);  // [3, 2]
  EXPECT_THROW(view(a, {6}), Error);
  Tensor r = reshape(a, {6});
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(reshape(a, {-1, 3}).shape(), Shape({2, 3}));
  EXPECT_THROW(reshape(a, {4, -1}), Error);
}

TEST(TensorTest, DtypesConvert) {
  Tensor f = tensor({1.7f, -2.2f, 0.0f});
  EXPECT_EQ(f.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{1, -2, 0}));
  EXPECT_EQ(f.to(kBool).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(f.to(kFloat64).dtype(), kFloat64);
  EXPECT_EQ(tensor({300, 5}).to(kUInt8).to_vector<int>(), (std::vector<int>{44, 5}));
  EXPECT_EQ(tensor({1, 2}).to(kInt32).dtype(), kInt32);
  EXPECT_EQ((tensor({1, 2}) + tensor({0.5f, 0.5f})).dtype(), kFloat32);  // promotion
}

TEST(TensorTest, Factories) {
  EXPECT_EQ(arange(5).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(1, 2, 0.25, kFloat64).to_vector<double>(), (std::vector<double>{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(linspace(0, 1, 5).to_vector<float>(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1}));
  EXPECT_EQ(eye(2, 3).to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(full({2}, 3.5).to_vector<float>(), (std::vector<float>{3.5f, 3.5f}));
  EXPECT_EQ(scalar_tensor(2).dim(), 0);
  EXPECT_THROW(from_vector(std::vector<float>{1, 2, 3}, {2, 2}), Error);
}

TEST(TensorTest, RandomIsReproducibleForASeed) {
  manual_seed(42);
  Tensor a = randn({100});
  manual_seed(42);
  Tensor b = randn({100});
  EXPECT_TRUE(allclose(a, b, 0, 0));
  Tensor u = rand({10000});
  EXPECT_GE(amin(u).item<float>(), 0.0f);
  EXPECT_LT(amax(u).item<float>(), 1.0f);
  EXPECT_NEAR(mean(u).item<float>(), 0.5, 0.02);
  Tensor n = randn({10000}, kFloat64);
  EXPECT_NEAR(std(n).item<double>(), 1.0, 0.05);
  Tensor r = randint(3, 7, {1000});
  EXPECT_GE(amin(r).item<int64_t>(), 3);
  EXPECT_LE(amax(r).item<int64_t>(), 6);
  EXPECT_NEAR(mean(bernoulli({10000}, 0.3)).item<float>(), 0.3, 0.02);
  auto perm = randperm(50).to_vector<int64_t>();
  std::sort(perm.begin(), perm.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(perm[i], i);
}

TEST(TensorTest, PrintsLikePyTorch) {
  EXPECT_EQ(tensor({1.0f, 2.5f}, {1, 2}).str(), "tensor([[1.0000, 2.5000]], shape=[1, 2], dtype=float32)");
  EXPECT_EQ(tensor({3, -4}).str(), "tensor([ 3, -4], shape=[2], dtype=int64)");
  std::string big = zeros({2000}).str();
  EXPECT_NE(big.find("..."), std::string::npos);
  EXPECT_LT(big.size(), 200u);
}

TEST(TensorTest, UpToEightDimensions) {
  Tensor a = zeros({1, 1, 1, 1, 1, 1, 1, 2});
  EXPECT_EQ(a.dim(), 8);
  EXPECT_THROW(unsqueeze(a, 0), Error);
}

TEST(TensorTest, AllocatorReusesFreedBuffers) {
  { Tensor warm = empty_like(zeros({1000, 1000})); }
  auto before = CpuAllocator::stats();
  for (int i = 0; i < 10; ++i) Tensor t = zeros({1000, 1000});
  auto after = CpuAllocator::stats();
  EXPECT_EQ(after.system_allocations, before.system_allocations);
  EXPECT_GE(after.cache_hits, before.cache_hits + 10);
}

TEST(TensorTest, ErrorsNameWhatWasWrong) {
  try {
    add(zeros({2, 3}), zeros({4}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("add"), std::string::npos);
  }
  EXPECT_THROW(zeros({2}).item<float>(), Error);
  EXPECT_THROW(zeros({2}).data<double>(), Error);
  EXPECT_THROW(sum(zeros({2}), {3}), Error);
  EXPECT_THROW(select(zeros({2}), 0, 5), Error);
  EXPECT_THROW(permute(zeros({2, 3}), {0, 0}), Error);
  EXPECT_THROW(exp(tensor({1, 2})), Error);
  EXPECT_THROW(div(tensor({1, 2}), tensor({1, 0})), Error);
  EXPECT_THROW(matmul(zeros({2, 3}), zeros({4, 2})), Error);
  EXPECT_THROW(Tensor::empty({2}, kFloat32, Device{DeviceType::CUDA, 0}), Error);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {
TEST(TensorTest, EmptyTensorsWorkEverywhere) {
  Tensor e = zeros({0, 3});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ((e + 1.0).shape(), Shape({0, 3}));
  EXPECT_EQ(e.to(kInt64).shape(), Shape({0, 3}));
  EXPECT_EQ(e.transpose(0, 1).contiguous().shape(), Shape({3, 0}));
  EXPECT_EQ(sum(e, {0}).to_vector<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(matmul(zeros({2, 0}), zeros({0, 3})).to_vector<float>(), std::vector<float>(6, 0.0f));
}
}  // namespace
}  // namespace strata
