#include "strata/nn/zoo/mobilenet.hpp"

#include "chain.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/noise.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"

namespace strata::nn::zoo {
namespace {

// Keras's BatchNormalization defaults (momentum 0.99, epsilon 1e-3), then ReLU6.
BatchNorm bn_relu6(const std::string& name) { return BatchNorm(0.99, 1e-3, "relu6", name); }

Conv2d conv_no_bias(int64_t filters, SpatialSizes size, ConvOptions options, const std::string& name) {
  return Conv2d(filters, std::move(size), {}, std::move(options), name, -1, /*use_bias=*/false);
}

}  // namespace

std::shared_ptr<Model> mobilenet_v1(const std::string& end_with, const Shape& input) {
  Chain c("mobilenet_v1", input, end_with);
  c.add(conv_no_bias(32, {3, 3}, {.stride = {2, 2}, .padding = Padding::same()}, "conv1"));
  c.add(bn_relu6("conv1_bn"));
  // Pointwise filters and stride of blocks 1..13.
  const int64_t filters[] = {64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024};
  const int strides[] = {1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};
  for (int i = 0; i < 13; ++i) {
    const std::string id = std::to_string(i + 1);
    ConvOptions dw = Conv2d::same_padding();
    if (strides[i] == 2) {
      // Keras pads one row and column after, then convolves VALID: SAME's split for even
      // sizes, but also for odd ones.
      c.add(ZeroPad2d(PadPairs{{0, 1}, {0, 1}}, "conv_pad_" + id));
      dw = {.stride = {2, 2}, .padding = Padding::valid()};
    }
    c.add(DepthwiseConv2d({3, 3}, {}, dw, 1, "conv_dw_" + id, -1, /*use_bias=*/false));
    c.add(bn_relu6("conv_dw_" + id + "_bn"));
    c.add(conv_no_bias(filters[i], {1, 1}, Conv2d::same_padding(), "conv_pw_" + id));
    c.add(bn_relu6("conv_pw_" + id + "_bn"));
  }
  c.add(GlobalMeanPool2d("global_average_pooling2d"));
  c.add(Reshape({1, 1, 1024}, "reshape_1"));
  c.add(Dropout(1e-3, "dropout"));  // Keras's default rate
  c.add(Conv2d(1000, {1, 1}, "softmax", Conv2d::same_padding(), "conv_preds"));
  c.add(Reshape({1000}, "predictions"));
  return c.finish();
}

}  // namespace strata::nn::zoo
