#include "strata/nn/zoo/unet.hpp"

#include <map>
#include <string>
#include <vector>

#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/merge.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"

namespace strata::nn::zoo {
namespace {

// Every layer's output by name, so that end_with can pick any of them.
class Outputs {
 public:
  // The name is read before the graph takes the layer.
  Symbol add(Layer&& layer, const Symbol& x) {
    std::string name = layer.name();
    return keep(name, std::move(layer)(x));
  }
  Symbol add(Layer&& layer, const std::vector<Symbol>& xs) {
    std::string name = layer.name();
    return keep(name, std::move(layer)(xs));
  }
  const Symbol& at(const std::string& name) const {
    const auto it = by_name_.find(name);
    STRATA_CHECK(it != by_name_.end(), "unet: end_with '", name, "' is not one of its layers (down1_conv1 ... logits)");
    return it->second;
  }

 private:
  Symbol keep(const std::string& name, const Symbol& s) {
    by_name_.insert_or_assign(name, s);
    return s;
  }
  std::map<std::string, Symbol> by_name_;
};

// conv 3x3 + batch norm + ReLU, twice: one level of either path.
Symbol double_conv(Outputs& out, const Symbol& x, int64_t filters, const std::string& name) {
  Symbol h = x;
  for (const char* k : {"1", "2"}) {
    h = out.add(Conv2d(filters, {3, 3}, {}, Conv2d::same_padding(), name + "_conv" + k, -1, /*use_bias=*/false), h);
    h = out.add(BatchNorm(0.9, 1e-5, "relu", name + "_bn" + k), h);
  }
  return h;
}

void check(const UNetOptions& o, const Shape& input) {
  STRATA_CHECK(o.classes >= 2, "unet: classes must be >= 2, got ", o.classes);
  STRATA_CHECK(o.depth >= 1 && o.depth <= 8, "unet: depth must be in [1, 8], got ", o.depth);
  STRATA_CHECK(o.width >= 1 && o.width <= 1024, "unet: width must be in [1, 1024], got ", o.width);
  STRATA_CHECK(input.size() == 4 && input[1] > 0 && input[2] > 0 && input[3] > 0, "unet: expected an input [-1, H, W, C]",
               " with known H, W and C, got ", input.str());
  const int64_t step = int64_t{1} << o.depth;
  STRATA_CHECK(input[1] % step == 0 && input[2] % step == 0, "unet: depth ", o.depth, " halves the input ", o.depth,
               " times, so H and W must be multiples of ", step, ", got ", input.str());
}

}  // namespace

std::shared_ptr<Model> unet(const std::string& end_with, const Shape& input, const UNetOptions& options) {
  check(options, input);
  const Symbol x = Input(input, "input");
  Outputs out;
  std::vector<Symbol> skips;
  Symbol h = x;
  for (int64_t l = 1; l <= options.depth; ++l) {
    const std::string name = "down" + std::to_string(l);
    skips.push_back(double_conv(out, h, options.width << (l - 1), name));
    h = out.add(MaxPool2d({2, 2}, {.padding = Padding::valid()}, name + "_pool"), skips.back());
  }
  h = double_conv(out, h, options.width << options.depth, "bottom");
  for (int64_t l = options.depth; l >= 1; --l) {
    const std::string name = "up" + std::to_string(l);
    const int64_t filters = options.width << (l - 1);
    if (options.transposed) {
      h = out.add(DeConv2d(filters, {2, 2}, {}, same_padding(2), name + "_upconv"), h);
    } else {
      h = out.add(UpSampling2d({2, 2}, ResizeMethod::bilinear, name + "_resize"), h);
      h = out.add(Conv2d(filters, {3, 3}, {}, Conv2d::same_padding(), name + "_upconv"), h);
    }
    h = out.add(Concat(-1, name + "_concat"), std::vector<Symbol>{skips[l - 1], h});
    h = double_conv(out, h, filters, name);
  }
  out.add(Conv2d(options.classes, {1, 1}, {}, Conv2d::same_padding(), "logits"), h);
  return std::make_shared<Model>(x, out.at(end_with), "unet");
}

}  // namespace strata::nn::zoo
