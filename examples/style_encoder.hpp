// The feature network of strata_style_transfer: VGG's layers up to relu4_1 (conv1_1 ... conv4_1,
// each conv with its ReLU), whose relu1_1, relu2_1, relu3_1 and relu4_1 carry the style and
// relu4_1 the content (Huang & Belongie's choice, which Gatys's relu-per-block style layers
// share). Either nn::zoo's VGG19 / VGG16 with the user's weights, or a VGG-shaped network of
// narrower layers (16-32-64-128 channels, two convs a block) trained here to tell the texture
// families and the scenes of style_images.hpp apart and to give their colours on a coarse grid.
// Both are static models whose layers are named as VGG's, run layer by layer so that every tap
// is kept.
#pragma once
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <strata/interop/pretrained.hpp>
#include <strata/nn/zoo/vgg.hpp>
#include <strata/strata.hpp>

namespace style_encoder {

// The layer names up to conv4_1 of a VGG whose first three blocks have `convs` convs each.
inline std::vector<std::string> layer_names(const std::vector<int>& convs) {
  std::vector<std::string> names;
  for (int b = 1; b <= 3; ++b) {
    for (int c = 1; c <= convs[b - 1]; ++c) names.push_back("conv" + std::to_string(b) + "_" + std::to_string(c));
    names.push_back("pool" + std::to_string(b));
  }
  names.push_back("conv4_1");
  return names;
}

struct Encoder {
  std::shared_ptr<strata::nn::Model> net;  // holds the layers (and, for the own network, its two heads)
  std::vector<std::string> layers;         // conv1_1 ... conv4_1 in order
  std::vector<int64_t> widths;             // channels of relu1_1 ... relu4_1
  std::vector<int> convs;                  // convs in blocks 1 to 3
  bool caffe_input = false;                // VGG's weights expect Keras's caffe preprocessing
  std::shared_ptr<strata::nn::Model> trunk;  // the own network's layers up to relu4_1, kept alive for `net`
  std::vector<double> scales;              // each tap's RMS on training pictures (calibrate); empty: 1

  // images [N, H, W, 3] in [0, 1] (H, W multiples of 8) -> relu1_1, relu2_1, relu3_1, relu4_1.
  std::vector<strata::Tensor> taps(const strata::Tensor& images) const {
    using namespace strata;
    // Keras's vgg preprocess_input ("caffe"): RGB -> BGR, 0..255, ImageNet's BGR means subtracted.
    Tensor h = caffe_input ? flip(images, {3}) * 255.0 - tensor({103.939f, 116.779f, 123.68f}) : images;
    std::vector<Tensor> out;
    for (const std::string& name : layers) {
      h = net->get_layer(name)(h);
      if (name.starts_with("conv") && name.ends_with("_1")) out.push_back(h);
    }
    return out;
  }
  // The taps, each divided by its scale: what the losses compare.
  std::vector<strata::Tensor> features(const strata::Tensor& images) const { return scaled(taps(images)); }
  std::vector<strata::Tensor> scaled(std::vector<strata::Tensor> raw) const {
    for (size_t i = 0; i < raw.size() && i < scales.size(); ++i) raw[i] = raw[i] / scales[i];
    return raw;
  }

  // Sets the scales from `images`, so that the losses are relative errors whatever the
  // network's activations are in.
  void calibrate(const strata::Tensor& images) {
    strata::NoGradGuard no_grad;
    scales.clear();
    for (const strata::Tensor& t : taps(images)) scales.push_back(std::sqrt(strata::mean(strata::square(t)).item<double>()) + 1e-12);
  }
};

// VGG-<depth> up to relu4_1 with the weights of `path` (interop::load_pretrained): a TensorLayer
// .npz by order, or a Keras / TensorLayer .h5 by layer name, under either naming.
// The file's layers after conv4_1 are skipped. Throws strata::Error naming the file when a
// weight is missing or has another shape.
inline Encoder vgg_encoder(int depth, const std::string& path, int64_t side) {
  using namespace strata;
  const Shape input{-1, side, side, 3};
  Encoder e{depth == 16 ? nn::zoo::vgg16("conv4_1", input) : nn::zoo::vgg19("conv4_1", input), {}, {64, 128, 256, 512},
            {2, 2, depth == 16 ? 3 : 4}, true};
  e.layers = layer_names(e.convs);
  interop::load_pretrained(*e.net, path);
  e.net->eval();
  return e;
}

// The network trained here: a static model up to relu4_1 ("style_encoder"), nested in a model
// of two heads that trains it and that the hub keeps whole: the class (global mean of relu4_1,
// dense to `classes` logits), and the picture's colours on a grid of side/16 squares (relu4_1
// mean-pooled 2x2, a 1x1 conv to RGB, flattened), concatenated after the logits. The class asks
// for texture features at several scales; the colours keep colour and layout in relu4_1, which
// AdaIN's decoder draws the picture from (a class alone is blind to both: palettes and scenes
// are random within a class). Its layers are found by name inside it.
inline Encoder own_encoder(int64_t side, int64_t classes) {
  using namespace strata;
  Encoder e{nullptr, layer_names({2, 2, 2}), {16, 32, 64, 128}, {2, 2, 2}, false};
  const nn::Symbol x = nn::Input({-1, side, side, 3});
  nn::Symbol h = x;
  for (const std::string& name : e.layers) {
    if (name.starts_with("pool")) {
      h = nn::MaxPool2d({2, 2}, {.stride = {2, 2}, .padding = Padding::same()}, name)(h);
    } else {
      const int64_t width = e.widths[static_cast<size_t>(name[4] - '1')];
      h = nn::Conv2d(width, {3, 3}, "relu", nn::Conv2d::same_padding(), name)(h);
    }
  }
  e.trunk = std::make_shared<nn::Model>(x, h, "style_encoder");
  const nn::Symbol image = nn::Input({-1, side, side, 3});
  const nn::Symbol relu4_1 = (*e.trunk)(image);
  const nn::Symbol logits = nn::Dense(classes, {}, "logits")(nn::GlobalMeanPool2d("global_mean")(relu4_1));
  const nn::Symbol grid = nn::MeanPool2d({2, 2}, {.stride = {2, 2}, .padding = Padding::same()}, "colour_pool")(relu4_1);
  const nn::Symbol colours = nn::Flatten("colours")(nn::Conv2d(3, {1, 1}, {}, nn::Conv2d::same_padding(), "colour_rgb")(grid));
  e.net = std::make_shared<nn::Model>(image, nn::Concat(-1, "heads")({logits, colours}), "style_features");
  return e;
}

// The second head's targets: images [N, S, S, 3] -> their mean colours on the grid of S/16
// squares, flattened as that head flattens them.
inline strata::Tensor colour_grid(const strata::Tensor& images) {
  const strata::Tensor grid = strata::avg_pool2d(images, {16, 16}, {.padding = strata::Padding::same()});
  return strata::reshape(grid, {images.size(0), -1});
}

}  // namespace style_encoder
