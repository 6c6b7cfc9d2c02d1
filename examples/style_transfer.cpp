// Neural style transfer (docs/style_transfer.md): the look of a style picture given to a content
// picture, by two methods on one feature network (examples/style_encoder.hpp):
//   --method gatys  Gatys, Ecker & Bethge (2016): the pixels themselves optimised (Adam) so that
//                   relu4_1 matches the content's and the Gram matrices of relu1_1 ... relu4_1
//                   match the style's, plus total variation;
//   --method adain  Huang & Belongie (2017): a decoder trained to invert AdaIN(content features,
//                   style features), one forward pass per picture afterwards, --alpha trading
//                   content for style.
// Content scenes and style textures are drawn here (examples/style_images.hpp); the feature
// network is VGG with --vgg FILE, else a small VGG-shaped one trained here first. Content and
// style losses on held-out pairs are printed before and after; the run, the feature network and
// the AdaIN decoder go into the hub; --out gets a PNG grid of content | style | result rows.
//   strata_style_transfer --help
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <strata/ops/style.hpp>
#include <strata/strata.hpp>
#include <strata/viz/visualize.hpp>

#include "flag_checks.hpp"
#include "style_adain.hpp"
#include "style_encoder.hpp"
#include "style_images.hpp"

using namespace strata;

namespace {

// Seeds of the picture sets: the feature network's training and test pictures, the decoder's
// training pictures and the held-out pairs are drawn from different seeds.
constexpr uint64_t kFeatureTrainSeed = 1, kFeatureTestSeed = 2, kTrainSeed = 3, kHeldOutSeed = 4;

struct Flags {
  std::string method = "adain", vgg, init = "content", out = "style_transfer_out", hub = "style_transfer.db";
  int vgg_depth = 19;
  int64_t size = 64, pairs = 6, feature_images = 2100, feature_epochs = 12, gatys_steps = 300, adain_steps = 1500,
          batch = 8;
  double gatys_lr = 0.05, adain_lr = 1e-3, content_weight = 1, style_weight = 10, tv_weight = 1, alpha = 1;
  bool retrain_features = false;
};

Flags parse(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_style_transfer: Gatys and AdaIN neural style transfer on generated scenes and textures, into the hub");
  app.add_option("--method", f.method, "gatys (optimise the pixels) or adain (train a decoder)")
      ->check(CLI::IsMember({"gatys", "adain"}))->capture_default_str();
  app.add_option("--vgg", f.vgg, "VGG weights (Keras / TensorLayer .h5, TensorLayer .npz): VGG up to relu4_1 as the "
                                 "feature network instead of the one trained here")->type_name("FILE");
  app.add_option("--vgg-depth", f.vgg_depth, "VGG16 or VGG19 for --vgg")->check(CLI::IsMember({16, 19}))->capture_default_str();
  app.add_option("--size", f.size, "side of the pictures, a multiple of 8")->type_name("PX")
      ->check(CLI::Range(16, 512))->capture_default_str();
  app.add_option("--pairs", f.pairs, "held-out (content, style) pairs measured and shown")->type_name("N")
      ->check(CLI::Range(1, 64))->capture_default_str();
  app.add_option("--feature-images", f.feature_images, "pictures the own feature network trains on")->type_name("N")
      ->check(CLI::Range(7, 20000))->capture_default_str();
  app.add_option("--feature-epochs", f.feature_epochs, "its passes over them")->type_name("N")
      ->check(flag_checks::at_least(1))->capture_default_str();
  app.add_flag("--retrain-features", f.retrain_features, "train the own feature network even when the hub has one");
  app.add_option("--gatys-steps", f.gatys_steps, "Gatys: Adam steps on the pixels")->type_name("N")
      ->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--gatys-lr", f.gatys_lr, "Gatys: Adam's learning rate (on the pixels' logits)")->type_name("LR")
      ->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--init", f.init, "Gatys: start from the content picture or from noise")
      ->check(CLI::IsMember({"content", "noise"}))->capture_default_str();
  app.add_option("--tv-weight", f.tv_weight, "Gatys: weight of the total-variation loss")->type_name("W")
      ->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--adain-steps", f.adain_steps, "AdaIN: decoder training steps")->type_name("N")
      ->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--adain-lr", f.adain_lr, "AdaIN: Adam's learning rate")->type_name("LR")
      ->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--batch", f.batch, "AdaIN: (content, style) pairs per step")->type_name("N")
      ->check(CLI::Range(1, 256))->capture_default_str();
  app.add_option("--alpha", f.alpha, "AdaIN: content-style trade-off, 0 (content) to 1 (style)")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  app.add_option("--content-weight", f.content_weight, "weight of the content loss")->type_name("W")
      ->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--style-weight", f.style_weight, "weight of the style loss")->type_name("W")
      ->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--out", f.out, "folder for the picture grid")->type_name("DIR")->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  STRATA_CHECK(f.size % 8 == 0, "strata_style_transfer: --size must be a multiple of 8 (three 2x2 poolings), got ", f.size);
  return f;
}

// The own feature network: the latest "style_features_<size>" of the hub (a static model's
// input size is part of it), else trained here and saved there. Its targets: the class (the six texture families, and the scenes as class 6) and the
// colour grid (style_encoder::colour_grid), side by side in one row per picture.
style_encoder::Encoder own_features(const Flags& f, hub::Hub& store) {
  const auto classes = static_cast<int64_t>(style_images::kTextureFamilies.size()) + 1;
  style_encoder::Encoder e = style_encoder::own_encoder(f.size, classes);
  const std::string name = "style_features_" + std::to_string(f.size);
  if (!f.retrain_features && store.model_info(name)) {
    const lifecycle::HubModel stored = lifecycle::load_static_model(store, name);
    e.net = stored.model;  // holds its own copy of the layers up to relu4_1
    e.trunk.reset();
    std::printf("feature network: %s version %lld from the hub\n", name.c_str(), static_cast<long long>(stored.info.version));
    return e;
  }
  // Every seventh picture a scene, the others textures of each family in turn.
  auto labelled = [&](uint64_t seed, int64_t n) {
    std::vector<Tensor> images;
    std::vector<float> labels;
    for (int64_t i = 0; i < n; ++i) {
      if (i % classes == classes - 1) {
        images.push_back(style_images::content_scene(seed, i, f.size));
        labels.push_back(static_cast<float>(classes - 1));
      } else {
        const style_images::Texture t = style_images::style_texture(seed, i, f.size);
        images.push_back(t.image);
        labels.push_back(static_cast<float>(t.family));
      }
    }
    const Tensor x = stack(images, 0);
    return std::pair{x, concat({from_vector(labels, {n, 1}), style_encoder::colour_grid(x)}, 1)};
  };
  const auto [x, y] = labelled(kFeatureTrainSeed, f.feature_images);
  const auto [test_x, test_y] = labelled(kFeatureTestSeed, std::max<int64_t>(classes * 20, f.feature_images / 5));
  const int64_t colours = y.size(1) - 1;
  // Cross-entropy on the class plus 10 x the colours' MSE (colours in [0, 1]: an MSE of a few
  // hundredths, a tenth of the cross-entropy, until weighted).
  const train::LossFn loss = [classes, colours](const Tensor& out, const Tensor& target) {
    return cross_entropy(narrow(out, 1, 0, classes), cast(select(target, 1, 0), kInt64)) +
           10.0 * mse_loss(narrow(out, 1, classes, colours), narrow(target, 1, 1, colours));
  };
  optim::Adam adam(e.net->trainable_weights(), {.lr = 2e-3});
  auto logger = std::make_shared<lifecycle::HubLogger>(
      store, name, nlohmann::json({{"size", f.size}, {"images", f.feature_images}}).dump());
  train::fit(*e.net, adam, loss, {x, y},
             {.epochs = f.feature_epochs, .batch_size = 32, .seed = 7, .metrics = {}, .callbacks = {logger}, .verbose = 0});
  const Tensor out = train::predict(*e.net, test_x, 100);
  const double accuracy =
      mean(cast(eq(argmax(narrow(out, 1, 0, classes), 1), cast(select(test_y, 1, 0), kInt64)), kFloat32)).item<double>();
  const double colour_rmse =
      std::sqrt(mse_loss(narrow(out, 1, classes, colours), narrow(test_y, 1, 1, colours)).item<double>());
  const int64_t version = lifecycle::save_model(
      store, name, *e.net,
      {.metrics = {{"accuracy", accuracy}, {"colour_rmse", colour_rmse}}, .run_id = logger->run_id()});
  std::printf("feature network: trained %lld epochs on %lld pictures, held-out accuracy %.3f over %lld classes, "
              "colour RMSE %.4f; saved %s version %lld\n", static_cast<long long>(f.feature_epochs),
              static_cast<long long>(f.feature_images), accuracy, static_cast<long long>(classes), colour_rmse, name.c_str(),
              static_cast<long long>(version));
  return e;
}

// Content and style losses on the held-out pairs.
using Losses = style_adain::HeldOutLosses;

void print_losses(const char* when, const Losses& l) {
  std::printf("%s: content loss %.5f style loss %.5f\n", when, l.content, l.style);
}

// Gatys: the pictures' logits optimised (a sigmoid keeps the pixels in (0, 1)) against
// content loss (relu4_1 MSE) + style loss (Gram MSE over the four taps) + total variation.
Tensor gatys(const Flags& f, const style_encoder::Encoder& enc, const Tensor& content, const Tensor& style, hub::Run& run) {
  std::vector<Tensor> style_grams;
  Tensor content_target;
  {
    NoGradGuard no_grad;
    for (const Tensor& s : enc.features(style)) style_grams.push_back(gram_matrix(s));
    content_target = enc.features(content).back();
  }
  auto losses = [&](const Tensor& image) {
    const std::vector<Tensor> taps = enc.features(image);
    return std::pair{mse_loss(taps.back(), content_target), gram_style_loss(taps, style_grams)};
  };
  const Tensor start = f.init == "content" ? content : rand(content.shape());
  const Tensor p = clamp(start, 0.02, 0.98);
  Tensor logits = log(p / (1.0 - p)).detach().requires_grad_();
  optim::Adam adam({logits}, {.lr = f.gatys_lr});
  auto measure = [&](const char* when) {
    NoGradGuard no_grad;
    const auto [c, s] = losses(sigmoid(logits));
    const Losses l{c.item<double>(), s.item<double>()};
    print_losses(when, l);
    return l;
  };
  const Losses before = measure("before");
  for (int64_t step = 1; step <= f.gatys_steps; ++step) {
    const Tensor image = sigmoid(logits);
    const auto [c, s] = losses(image);
    Tensor total = f.content_weight * c + f.style_weight * s + f.tv_weight * total_variation_loss(image);
    adam.zero_grad();
    total.backward();
    adam.step();
    run.log(step, hub::Split::train, {{"content", c.item<double>()}, {"style", s.item<double>()}, {"total", total.item<double>()}});
    if (step % 50 == 0 || step == f.gatys_steps)
      std::printf("step %lld: content %.5f style %.5f total %.5f\n", static_cast<long long>(step), c.item<double>(),
                  s.item<double>(), total.item<double>());
  }
  const Losses after = measure("after");
  run.log(f.gatys_steps, hub::Split::test, {{"content_before", before.content}, {"style_before", before.style},
                                            {"content_after", after.content}, {"style_after", after.style}});
  return sigmoid(logits).detach();
}

// Into the hub: with the own feature network the whole (content, style) -> picture model, read
// back and checked against the networks it was made of; with VGG (whose caffe preprocessing is
// not a layer) the decoder alone.
void save_adain(hub::Hub& store, const style_encoder::Encoder& enc, style_adain::Trainer& trainer, const Tensor& content,
                const Tensor& style, const Flags& f, const hub::ModelMeta& meta) {
  if (enc.caffe_input) {
    const int64_t version = lifecycle::save_model(store, "style_adain_decoder", trainer.decoder(), meta);
    std::printf("saved style_adain_decoder version %lld in %s\n", static_cast<long long>(version), f.hub.c_str());
    return;
  }
  const int64_t version =
      lifecycle::save_model(store, "style_adain", *style_adain::whole_model(enc, trainer.decoder(), f.size), meta);
  std::printf("saved style_adain version %lld in %s (content, style -> picture)\n", static_cast<long long>(version), f.hub.c_str());
  const lifecycle::HubModel stored = lifecycle::load_static_model(store, "style_adain", version);
  const Tensor from_hub = clamp(stored.model->run({content, style})[0], 0.0, 1.0);
  std::printf("style_adain from the hub: max difference %.2g to the trained networks\n",
              amax(abs(from_hub - trainer.stylise(content, style, 1.0))).item<double>());
}

}  // namespace

int main(int argc, char** argv) try {
  const Flags f = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines show as they come, also in a log file
  manual_seed(1);
  std::filesystem::create_directories(f.out);
  hub::Hub store = hub::Hub::open(f.hub);

  // The feature network first: a bad --vgg file fails before any training.
  style_encoder::Encoder enc = f.vgg.empty() ? own_features(f, store) : style_encoder::vgg_encoder(f.vgg_depth, f.vgg, f.size);
  if (!f.vgg.empty())
    std::printf("feature network: VGG%d up to relu4_1, %zu weights from %s\n", f.vgg_depth, enc.net->all_weights().size(),
                f.vgg.c_str());
  enc.net->eval();
  // Each tap divided by its RMS on training pictures: the losses are then relative errors, alike
  // for VGG (activations in the hundreds) and the own network (around one).
  enc.calibrate(concat({style_images::content_batch(kTrainSeed, 0, 16, f.size), style_images::style_batch(kTrainSeed, 0, 16, f.size)}, 0));

  const Tensor content = style_images::content_batch(kHeldOutSeed, 0, f.pairs, f.size);
  const Tensor style = style_images::style_batch(kHeldOutSeed, 0, f.pairs, f.size);
  const nlohmann::json config = {{"method", f.method}, {"size", f.size}, {"pairs", f.pairs},
                                 {"features", f.vgg.empty() ? "style_features_" + std::to_string(f.size) : "vgg" + std::to_string(f.vgg_depth)},
                                 {"content_weight", f.content_weight}, {"style_weight", f.style_weight},
                                 {"steps", f.method == "gatys" ? f.gatys_steps : f.adain_steps},
                                 {"lr", f.method == "gatys" ? f.gatys_lr : f.adain_lr}};
  hub::Run run = store.create_run("style_transfer_" + f.method, config.dump());
  Tensor result;
  if (f.method == "gatys") {
    result = gatys(f, enc, content, style, run);
  } else {
    style_adain::Trainer trainer(enc, {.steps = f.adain_steps, .batch = f.batch, .size = f.size, .lr = f.adain_lr,
                                       .content_weight = f.content_weight, .style_weight = f.style_weight, .seed = kTrainSeed});
    const Losses before = trainer.held_out_losses(content, style);
    print_losses("before", before);
    trainer.train(run);
    const Losses after = trainer.held_out_losses(content, style);
    print_losses("after", after);
    run.log(f.adain_steps, hub::Split::test, {{"content_before", before.content}, {"style_before", before.style},
                                              {"content_after", after.content}, {"style_after", after.style}});
    result = trainer.stylise(content, style, f.alpha);
    save_adain(store, enc, trainer, content, style, f, {.metrics = {{"content_loss", after.content}, {"style_loss", after.style}},
                                                          .run_id = run.id()});
  }
  run.finish();
  // Rows of content | style | result.
  std::vector<Tensor> cells;
  for (int64_t i = 0; i < f.pairs; ++i)
    for (const Tensor& t : {content, style, result}) cells.push_back(select(clamp(t, 0.0, 1.0), 0, i));
  const std::string grid = (std::filesystem::path(f.out) / (f.method + "_grid.png")).string();
  viz::save_images(stack(cells, 0), grid, f.pairs, 3, 2);
  std::printf("content | style | result rows: %s; run %lld in %s\n", grid.c_str(), static_cast<long long>(run.id()), f.hub.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
