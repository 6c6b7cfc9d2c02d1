// Meta tensors: shapes and dtypes flow through the ops static models use, no data is touched,
// and reading data is a NoDataError (which static models catch to fall back to a real probe).
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

Tensor meta(const Shape& shape, DType dtype = kFloat32) { return Tensor::empty(shape, dtype, kMeta); }

TEST(MetaTest, HasShapeButNoData) {
  Tensor t = meta({2, 3});
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(t.device(), kMeta);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_THROW(t.raw_data(), NoDataError);
  testing::expect_error([&] { t.to_vector<float>(); }, {"meta device", "no data"});
  EXPECT_NE(t.str().find("device=meta"), std::string::npos);
}

TEST(MetaTest, OpsGiveMetaResultsOfTheRightShapeAndDtype) {
  Tensor x = meta({4, 8});
  Tensor w = randn({8, 5});  // real weights meet meta activations
  Tensor y = relu(linear(x, w, zeros({5})));
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.shape(), Shape({4, 5}));
  EXPECT_EQ(softmax(y, 1).shape(), Shape({4, 5}));
  EXPECT_EQ(sum(y, {1}).shape(), Shape({4}));
  EXPECT_EQ(argmax(y, 1).dtype(), kInt64);
  EXPECT_EQ(cast(y, kFloat64).dtype(), kFloat64);
  EXPECT_TRUE((y + 1.0).is_meta());
  EXPECT_EQ((y > 0.0).dtype(), kBool);
  EXPECT_EQ(concat({y, ones({4, 2})}, 1).shape(), Shape({4, 7}));
  EXPECT_TRUE(concat({ones({4, 2}), y}, 1).is_meta());
  EXPECT_EQ(y.permute({1, 0}).contiguous().shape(), Shape({5, 4}));
  EXPECT_EQ(matmul(meta({3, 4, 8}), randn({8, 2})).shape(), Shape({3, 4, 2}));
}

TEST(MetaTest, ConvolutionAndPoolingShapes) {
  Tensor x = meta({1, 28, 28, 3});
  Tensor y = conv2d(x, randn({5, 5, 3, 16}), zeros({16}), {.padding = Padding::same()});
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.shape(), Shape({1, 28, 28, 16}));
  EXPECT_EQ(max_pool2d(y, {2, 2}).shape(), Shape({1, 14, 14, 16}));
}

}  // namespace
}  // namespace strata
