#include "strata/nn/zoo/resnet.hpp"

#include "chain.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/merge.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"

namespace strata::nn::zoo {
namespace {

BatchNorm keras_bn(const std::string& name, Activation act = {}) { return BatchNorm(0.99, 1.001e-5, act, name); }

// SAME padding: Keras's for the 3x3 convolutions; for the 1x1 ones it adds nothing, as VALID.
Symbol conv_bn(const Symbol& x, int64_t filters, int64_t size, int64_t stride, Activation act, const std::string& name) {
  Symbol h = Conv2d(filters, {size, size}, {}, {.stride = {stride, stride}, .padding = Padding::same()},
                    name + "_conv")(x);
  return keras_bn(name + "_bn", std::move(act))(h);
}

// Keras's block1: 1x1 (with the stride), 3x3, 1x1 to 4 * filters, added to the shortcut.
Symbol bottleneck(const Symbol& x, int64_t filters, int64_t stride, bool project, const std::string& name) {
  const Symbol shortcut = project ? conv_bn(x, 4 * filters, 1, stride, {}, name + "_0") : x;
  Symbol h = conv_bn(x, filters, 1, stride, "relu", name + "_1");
  h = conv_bn(h, filters, 3, 1, "relu", name + "_2");
  h = conv_bn(h, 4 * filters, 1, 1, {}, name + "_3");
  return Elementwise("add", "relu", name + "_out")({shortcut, h});
}

}  // namespace

std::shared_ptr<Model> resnet50(const std::string& end_with, const Shape& input) {
  Chain c("resnet50", input, end_with);
  c.add(ZeroPad2d(3, "conv1_pad"));
  c.add(Conv2d(64, {7, 7}, {}, {.stride = {2, 2}}, "conv1_conv"));
  c.add(keras_bn("conv1_bn", "relu"));
  c.add(ZeroPad2d(1, "pool1_pad"));
  c.add(MaxPool2d({3, 3}, {.stride = {2, 2}, .padding = Padding::valid()}, "pool1_pool"));
  const int64_t filters[] = {64, 128, 256, 512};
  const int blocks[] = {3, 4, 6, 3};
  for (int s = 0; s < 4; ++s)
    for (int b = 1; b <= blocks[s]; ++b) {
      const std::string name = "conv" + std::to_string(s + 2) + "_block" + std::to_string(b);
      // Stage conv2 keeps the pool's resolution; the others halve it in their first block.
      const int64_t stride = b == 1 && s > 0 ? 2 : 1;
      c.add_block(name + "_out", [&](const Symbol& x) { return bottleneck(x, filters[s], stride, b == 1, name); });
    }
  c.add(GlobalMeanPool2d("avg_pool"));
  c.add(Dense(1000, "softmax", "predictions"));
  return c.finish();
}

}  // namespace strata::nn::zoo
