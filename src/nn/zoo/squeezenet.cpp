#include "strata/nn/zoo/squeezenet.hpp"

#include "chain.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/merge.hpp"
#include "strata/nn/layers/noise.hpp"
#include "strata/nn/layers/pool.hpp"

namespace strata::nn::zoo {
namespace {

MaxPool2d max_pool_3x3(const std::string& name) {
  return MaxPool2d({3, 3}, {.stride = {2, 2}, .padding = Padding::valid()}, name);
}

// TensorLayer's fire_block: squeeze to `squeeze` channels, expand to 4x by 1x1 and 3x3, concat.
Symbol fire(const Symbol& x, int64_t squeeze, bool max_pool, const std::string& name) {
  Symbol s = Conv2d(squeeze, {1, 1}, "relu", Conv2d::same_padding(), name + ".squeeze1x1")(x);
  Symbol e1 = Conv2d(4 * squeeze, {1, 1}, "relu", Conv2d::same_padding(), name + ".expand1x1")(s);
  Symbol e3 = Conv2d(4 * squeeze, {3, 3}, "relu", Conv2d::same_padding(), name + ".expand3x3")(s);
  Symbol h = Concat(-1, name + ".concat")({e1, e3});
  return max_pool ? max_pool_3x3(name + ".max")(h) : h;
}

}  // namespace

std::shared_ptr<Model> squeezenet_v1(const std::string& end_with, const Shape& input) {
  Chain c("squeezenet_v1", input, end_with);
  c.add(Conv2d(64, {3, 3}, "relu", {.stride = {2, 2}, .padding = Padding::same()}, "conv1"));
  c.add(max_pool_3x3("maxpool1"));
  const int64_t squeeze[] = {16, 16, 32, 32, 48, 48, 64, 64};  // fire2 ... fire9
  for (int i = 0; i < 8; ++i) {
    const int n = i + 2;
    c.add_block("fire" + std::to_string(n), [&](const Symbol& x) {
      return fire(x, squeeze[i], n == 3 || n == 5, "fire" + std::to_string(n));
    });
  }
  c.add(Dropout(0.5, "drop1"));
  c.add_block("out", [](const Symbol& x) {
    Symbol logits = Conv2d(1000, {1, 1}, {}, {.padding = Padding::valid()}, "conv10")(x);
    return GlobalMeanPool2d("globalmeanpool")(logits);
  });
  return c.finish();
}

}  // namespace strata::nn::zoo
