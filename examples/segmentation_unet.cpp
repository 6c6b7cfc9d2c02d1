// Semantic segmentation with a U-Net (docs/segmentation.md): the zoo's U-Net learns to label
// every pixel of synthetic "scans" (strata/data/synthetic_scans.hpp: a body, a large organ, small
// organs and lesions) or of a folder of images and masks (--images, --masks), with soft Dice,
// soft IoU or cross-entropy loss (Dice and IoU optionally plus cross-entropy). It reports each
// class's IoU and Dice and their means on the held-out split, beside what a per-pixel intensity
// threshold scores; each model and its run go into the hub, and a picture shows held-out images
// with the true and the predicted masks drawn over them.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <strata/data/segmentation_folder.hpp>
#include <strata/data/synthetic_scans.hpp>
#include <strata/nn/zoo/unet.hpp>
#include <strata/ops/segmentation_losses.hpp>
#include <strata/strata.hpp>
#include <strata/train/mean_iou.hpp>
#include <strata/vision/image.hpp>
#include <strata/viz/visualize.hpp>

#include "flag_checks.hpp"
#include "segmentation_overlay.hpp"

using namespace strata;

namespace {

struct Flags {
  std::vector<std::string> losses{"dice", "iou", "ce"};
  int64_t train = 1000, test = 200, size = 64, epochs = 10, batch = 16, depth = 3, width = 16, classes = 4, shown = 6;
  double lr = 2e-3, ce_weight = 0, min_miou = 0;
  std::string images, masks, hub = "segmentation.db", out = "segmentation_out";
};

// The held-out and training splits with the class names.
struct Splits {
  data::Dataset train, test;
  std::vector<std::string> classes;
};

Splits load_data(const Flags& f) {
  if (f.images.empty()) {
    const data::SyntheticScanOptions scans{.size = f.size};
    return {data::synthetic_scans(f.train, 1, scans).cache(), data::synthetic_scans(f.test, 2, scans).cache(),
            data::synthetic_scan_classes()};
  }
  const data::SegmentationFolder folder = data::segmentation_folder(f.images, f.masks, {.classes = f.classes});
  const int64_t n = static_cast<int64_t>(folder.images.size());
  STRATA_CHECK(n >= 2, "strata_segmentation_unet: --images needs at least 2 image and mask pairs, got ", n);
  // Every image must have the first one's size: the model's input is fixed.
  const Shape first = folder.dataset().get(0)[0].shape();
  data::SegmentationFolderOptions sized = folder.options;
  sized.height = first[0];
  sized.width = first[1];
  const data::Dataset all = data::SegmentationFolder{folder.images, folder.masks, sized}.dataset().cache();
  const std::vector<data::Dataset> parts = data::split(all, {0.8, 0.2}, 7);
  std::vector<std::string> names;
  for (int64_t c = 0; c < f.classes; ++c) names.push_back("class " + std::to_string(c));
  std::printf("%lld image and mask pairs of %lld x %lld from %s and %s\n", static_cast<long long>(n),
              static_cast<long long>(first[1]), static_cast<long long>(first[0]), f.images.c_str(), f.masks.c_str());
  return {parts[0], parts[1], names};
}

train::LossFn loss_named(const std::string& name, double ce_weight) {
  return [name, ce_weight](const Tensor& logits, const Tensor& masks) {
    if (name == "ce") return cross_entropy(logits, masks);
    Tensor l = name == "dice" ? soft_dice_loss(logits, masks) : soft_iou_loss(logits, masks);
    return ce_weight > 0 ? l + ce_weight * cross_entropy(logits, masks) : l;
  };
}

// Per class IoU and Dice (the class's F1) and the means; returns the mean IoU.
double report(const std::string& who, const train::ConfusionMatrix& cm, const std::vector<std::string>& classes) {
  std::printf("%s per class IoU / Dice:", who.c_str());
  for (int64_t c = 0; c < cm.num_classes(); ++c)
    std::printf("%s %s %.3f / %.3f", c ? "," : "", classes[c].c_str(), train::class_iou(cm, c), cm.f1(c));
  const double miou = train::mean_iou(cm);
  std::printf("\n%s held-out mean IoU %.4f, mean Dice %.4f\n", who.c_str(), miou, cm.macro_f1());
  return miou;
}

// The best per-pixel intensity rule: each of 64 intensity bins labelled with the class most
// often at that intensity in the training images (it contains every threshold rule).
train::ConfusionMatrix intensity_baseline(const data::Example& train, const data::Example& test, int64_t classes) {
  constexpr int64_t kBins = 64;
  auto bin = [](float v) { return std::min<int64_t>(kBins - 1, static_cast<int64_t>(std::max(0.0f, v) * kBins)); };
  std::vector<std::vector<int64_t>> counts(kBins, std::vector<int64_t>(classes, 0));
  const std::vector<float> pixels = train[0].to_vector<float>();
  const std::vector<int64_t> ids = train[1].to_vector<int64_t>();
  for (size_t i = 0; i < ids.size(); ++i) ++counts[bin(pixels[i])][ids[i]];
  std::vector<float> scores;
  for (float v : test[0].to_vector<float>()) {
    const std::vector<int64_t>& c = counts[bin(v)];
    for (int64_t k = 0; k < classes; ++k) scores.push_back(static_cast<float>(c[k]));
  }
  train::ConfusionMatrix cm(classes);
  cm.update(from_vector(scores, Shape{test[1].numel(), classes}), test[1].reshape({test[1].numel()}));
  return cm;
}

}  // namespace

int main(int argc, char** argv) try {
  Flags f;
  CLI::App app("strata_segmentation_unet: U-Net segmentation of synthetic scans (or a folder of images and masks) with "
               "Dice, IoU or cross-entropy loss; mean IoU on the held-out split, models into the hub");
  app.add_option("--losses", f.losses, "one model per loss: dice, iou (soft, multi-class), ce (cross-entropy)")
      ->check(CLI::IsMember({"dice", "iou", "ce"}))->capture_default_str();
  app.add_option("--ce-weight", f.ce_weight, "adds this times cross-entropy to the dice and iou losses")
      ->type_name("X")->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--train", f.train, "synthetic training scans")->type_name("N")->check(CLI::Range(2, 20000))
      ->capture_default_str();
  app.add_option("--test", f.test, "synthetic held-out scans (another seed)")->type_name("N")
      ->check(CLI::Range(1, 20000))->capture_default_str();
  app.add_option("--size", f.size, "side of the synthetic scans in pixels (a multiple of 2^depth)")->type_name("N")
      ->check(CLI::Range(16, 256))->capture_default_str();
  auto* images = app.add_option("--images", f.images, "a folder of images instead (paired by name with --masks; "
                                                      "80% train, 20% held out)")->type_name("DIR");
  auto* masks = app.add_option("--masks", f.masks, "the folder of their masks: single-channel PNGs of class ids")
                    ->type_name("DIR");
  images->needs(masks);
  masks->needs(images);
  app.add_option("--classes", f.classes, "classes of the masks with --images (ids 0 .. classes - 1)")->type_name("N")
      ->check(flag_checks::at_least(2))->capture_default_str();
  app.add_option("--depth", f.depth, "U-Net levels (down-samplings)")->type_name("N")->check(CLI::Range(1, 8))
      ->capture_default_str();
  app.add_option("--width", f.width, "filters of the first level (doubled per level)")->type_name("N")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the training images")->type_name("N")
      ->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--batch", f.batch, "images per step")->type_name("N")->check(flag_checks::at_least(2))
      ->capture_default_str();
  app.add_option("--lr", f.lr, "Adam learning rate (cosine decay to 0 over the epochs)")->type_name("X")
      ->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--shown", f.shown, "held-out images in the picture")->type_name("N")->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("--out", f.out, "folder for the picture")->type_name("DIR")->capture_default_str();
  app.add_option("--min-miou", f.min_miou, "exit status 1 when a model's held-out mean IoU is below this")
      ->type_name("FRACTION")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  manual_seed(1);
  std::filesystem::create_directories(f.out);

  const Splits data = load_data(f);
  const int64_t classes = static_cast<int64_t>(data.classes.size());
  // Each split as one batch: {images [N, H, W, C], masks [N, H, W]}.
  const data::Example train_all = data.train.batch(data.train.size()).get(0);
  const data::Example test = data.test.batch(data.test.size()).get(0);
  const Shape input{-1, test[0].size(1), test[0].size(2), test[0].size(3)};
  std::printf("%lld training and %lld held-out images of %lld x %lld, %lld classes\n",
              static_cast<long long>(data.train.size()), static_cast<long long>(data.test.size()),
              static_cast<long long>(input[2]), static_cast<long long>(input[1]), static_cast<long long>(classes));
  if (input[3] == 1) report("intensity threshold", intensity_baseline(train_all, test, classes), data.classes);
  if (f.images.empty()) {
    // The data: 8 training scans above their masks.
    const int64_t n = std::min<int64_t>(8, data.train.size());
    const Tensor scans = train_all[0].narrow(0, 0, n);
    const std::string picture = (std::filesystem::path(f.out) / "synthetic_scans.png").string();
    viz::save_images(concat({overlay_masks(scans, {}), overlay_masks(scans, train_all[1].narrow(0, 0, n))}, 0), picture,
                     2, n, 2);
    std::printf("training scans and their masks: %s\n", picture.c_str());
  }

  hub::Hub store = hub::Hub::open(f.hub);
  const int64_t shown = std::min(f.shown, data.test.size());
  const Tensor shown_images = test[0].narrow(0, 0, shown);
  std::vector<Tensor> columns{overlay_masks(shown_images, {}), overlay_masks(shown_images, test[1].narrow(0, 0, shown))};
  bool all_passed = true;
  for (const std::string& loss : f.losses) {
    auto net = nn::zoo::unet("logits", input, {.classes = classes, .depth = f.depth, .width = f.width});
    const bool plus_ce = f.ce_weight > 0 && loss != "ce";
    const std::string name = "segmentation_unet_" + loss + (plus_ce ? "_ce" : "");
    std::printf("\n%s: U-Net depth %lld, width %lld, %lld weights, loss %s", name.c_str(),
                static_cast<long long>(f.depth), static_cast<long long>(f.width),
                static_cast<long long>(net->count_params()), loss.c_str());
    if (plus_ce) std::printf(" + %g ce", f.ce_weight);
    std::printf("\n");
    optim::Adam adam(net->trainable_weights(), {.lr = f.lr});
    const nlohmann::json config = {{"loss", loss},     {"ce_weight", f.ce_weight}, {"depth", f.depth},
                                   {"width", f.width}, {"epochs", f.epochs},       {"batch", f.batch},
                                   {"lr", f.lr},       {"train", data.train.size()}, {"size", input[1]}};
    auto logger = std::make_shared<lifecycle::HubLogger>(store, name, config.dump(), 10);
    auto cosine = std::make_shared<train::LearningRateScheduler>(std::make_shared<optim::CosineAnnealingLR>(adam, f.epochs));
    train::fit(*net, adam, loss_named(loss, f.ce_weight), data.train,
               {.epochs = f.epochs, .batch_size = f.batch, .seed = 5, .callbacks = {logger, cosine}});

    net->eval();
    const Tensor logits = train::predict(*net, test[0], 32);
    train::ConfusionMatrix cm(classes);
    cm.update(logits, test[1]);
    const double miou = report(name, cm, data.classes);
    const int64_t version = lifecycle::save_model(
        store, name, *net, {.metrics = {{"mean_iou", miou}, {"mean_dice", cm.macro_f1()}}, .run_id = logger->run_id()});
    std::printf("saved %s version %lld in %s (run %lld)\n", name.c_str(), static_cast<long long>(version),
                f.hub.c_str(), static_cast<long long>(logger->run_id()));
    columns.push_back(overlay_masks(shown_images, argmax(logits.narrow(0, 0, shown), -1)));
    all_passed = all_passed && miou >= f.min_miou;
  }
  // Rows: held-out images; columns: the image, the truth, then each loss's prediction.
  const std::string picture = (std::filesystem::path(f.out) / "segmentation_overlay.png").string();
  viz::save_images(stack(columns, 1).reshape({-1, columns[0].size(1), columns[0].size(2), 3}), picture, shown,
                   static_cast<int64_t>(columns.size()), 2);
  std::printf("\nheld-out images, truth and each model's masks (columns: image, truth, %s): %s\n",
              nlohmann::json(f.losses).dump().c_str(), picture.c_str());
  return all_passed ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
