// AdaIN style transfer (Huang & Belongie 2017) for strata_style_transfer: a decoder, the
// encoder's mirror (a conv per encoder conv, nearest 2x upsampling for each pooling, the last
// conv to RGB without activation, reflection padding), trained so that decoding t = AdaIN(f(content), f(style))
// gives a picture whose relu4_1 is t (content loss) and whose taps have the style's channel
// means and deviations (style loss); the encoder stays fixed. The decoder is a static model, and
// with the own feature network so is the whole (content, style) -> picture model (whole_model),
// which the hub keeps and `strata serve` runs.
#pragma once
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include <strata/ops/style.hpp>
#include <strata/strata.hpp>

#include "style_encoder.hpp"
#include "style_images.hpp"

namespace style_adain {

// A 3x3 conv on a border mirrored by one pixel (the paper's reflection padding): zero padding
// makes the decoder draw a frame along every edge.
inline strata::nn::Symbol reflect_conv(const strata::nn::Symbol& x, int64_t filters, strata::nn::Activation act) {
  using namespace strata;
  const nn::Symbol padded = nn::PadLayer({{1, 1}, {1, 1}, {0, 0}}, nn::PadLayerMode::reflect)(x);
  return nn::Conv2d(filters, {3, 3}, std::move(act), {.padding = Padding::valid()})(padded);
}

// relu4_1 features [-1, size/8, size/8, widths[3]] -> pictures [-1, size, size, 3].
inline std::shared_ptr<strata::nn::Model> make_decoder(const style_encoder::Encoder& enc, int64_t size) {
  using namespace strata;
  const nn::Symbol t = nn::Input({-1, size / 8, size / 8, enc.widths[3]});
  nn::Symbol h = t;
  for (int b = 3; b >= 1; --b) {
    // Block b + 1's first conv mirrored (to block b's width), up, block b's other convs mirrored.
    h = reflect_conv(h, enc.widths[b - 1], "relu");
    h = nn::UpSampling2d({2, 2}, nn::ResizeMethod::nearest)(h);
    for (int c = 1; c < enc.convs[b - 1]; ++c) h = reflect_conv(h, enc.widths[b - 1], "relu");
  }
  return std::make_shared<nn::Model>(t, reflect_conv(h, 3, {}), "style_adain_decoder");
}

struct Options {
  int64_t steps = 1500, batch = 8, size = 64;
  double lr = 1e-3, content_weight = 1, style_weight = 10;
  uint64_t seed = 3;  // of the training pictures
};

struct HeldOutLosses {
  double content = 0, style = 0;
};

class Trainer {
 public:
  // The encoder must be calibrated (its scales set) and outlive the trainer.
  Trainer(const style_encoder::Encoder& enc, Options o) : enc_(enc), o_(o), decoder_(make_decoder(enc, o.size)) {
    STRATA_CHECK(enc.scales.size() == 4, "style_adain::Trainer: calibrate the encoder first");
  }

  strata::nn::Model& decoder() { return *decoder_; }

  // Adam on the decoder's weights, each step a new batch of scenes and textures.
  void train(strata::hub::Run& run) {
    using namespace strata;
    decoder_->train();
    optim::Adam adam(decoder_->trainable_weights(), {.lr = o_.lr});
    for (int64_t step = 1; step <= o_.steps; ++step) {
      const int64_t first = (step - 1) * o_.batch;
      const auto [c, s] = losses(style_images::content_batch(o_.seed, first, o_.batch, o_.size),
                                 style_images::style_batch(o_.seed, first, o_.batch, o_.size), 1.0);
      Tensor total = o_.content_weight * c + o_.style_weight * s;
      adam.zero_grad();
      total.backward();
      adam.step();
      run.log(step, hub::Split::train, {{"content", c.item<double>()}, {"style", s.item<double>()}});
      if (step % 100 == 0 || step == o_.steps)
        std::printf("step %lld: content %.5f style %.5f\n", static_cast<long long>(step), c.item<double>(), s.item<double>());
    }
    decoder_->eval();
  }

  HeldOutLosses held_out_losses(const strata::Tensor& content, const strata::Tensor& style) {
    strata::NoGradGuard no_grad;
    const auto [c, s] = losses(content, style, 1.0);
    return {c.item<double>(), s.item<double>()};
  }

  // The stylised pictures, in [0, 1]: alpha 0 decodes the content's own features, 1 AdaIN's.
  strata::Tensor stylise(const strata::Tensor& content, const strata::Tensor& style, double alpha) {
    strata::NoGradGuard no_grad;
    return strata::clamp((*decoder_)(target(content, style, alpha)), 0.0, 1.0);
  }

 private:
  // t = alpha AdaIN(f(content), f(style)) + (1 - alpha) f(content), at relu4_1 as the encoder
  // gives it (unscaled, as the whole model computes it; no gradient: the encoder is fixed).
  strata::Tensor target(const strata::Tensor& content, const strata::Tensor& style, double alpha) {
    strata::NoGradGuard no_grad;
    const strata::Tensor fc = enc_.taps(content).back();
    return alpha * strata::adain(fc, enc_.taps(style).back()) + (1 - alpha) * fc;
  }

  // The content loss (relu4_1 of the decoded picture against t) and the style loss (channel
  // means and deviations of its four taps against the style's), on the scaled taps.
  std::pair<strata::Tensor, strata::Tensor> losses(const strata::Tensor& content, const strata::Tensor& style, double alpha) {
    using namespace strata;
    const Tensor t = target(content, style, alpha);
    std::vector<Tensor> style_features;
    {
      NoGradGuard no_grad;
      style_features = enc_.features(style);
    }
    const std::vector<Tensor> features = enc_.features((*decoder_)(t));
    return {mse_loss(features.back(), t / enc_.scales.back()), mean_std_style_loss(features, style_features)};
  }

  const style_encoder::Encoder& enc_;
  Options o_;
  std::shared_ptr<strata::nn::Model> decoder_;
};

// The whole AdaIN model of the own feature network, (content, style) pictures -> stylised ones
// (alpha 1, unclamped): its encoder ("style_encoder", nested in the classifier) on both,
// ElementwiseLambda("adain") (a function every program knows), the decoder. It refers to the
// encoder's and the decoder's layers, so they must outlive it.
inline std::shared_ptr<strata::nn::Model> whole_model(const style_encoder::Encoder& enc, strata::nn::Model& decoder,
                                                      int64_t size) {
  using namespace strata;
  nn::Layer& encoder = enc.net->get_layer("style_encoder");
  const nn::Symbol content = nn::Input({-1, size, size, 3}, "content"), style = nn::Input({-1, size, size, 3}, "style");
  const nn::Symbol t = nn::ElementwiseLambda("adain")({encoder(content), encoder(style)});
  return std::make_shared<nn::Model>(std::vector<nn::Symbol>{content, style}, std::vector<nn::Symbol>{decoder(t)}, "style_adain");
}

}  // namespace style_adain
