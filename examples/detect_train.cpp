// Object detection (docs/detection.md): YOLOv4-tiny, built from darknet's published cfg, trained
// from scratch on the generated detection set (5 shape classes on cluttered backgrounds,
// strata/vision/synthetic_detection.hpp) with darknet's loss (CIoU boxes, objectness with
// ignore_thresh, class BCE), Adam with a linear warm-up then a cosine, flips and letterbox
// jitter. Reports COCO AP50 and AP@[.5:.95] on held-out images, saves the model whole in the hub
// with its heads (the version's value "detector", read by `strata detect`), and writes test
// images with their detections drawn.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <strata/data/annotations.hpp>
#include <strata/data/image_codec.hpp>
#include <strata/data/visualize.hpp>
#include <strata/strata.hpp>
#include <strata/vision/coco_eval.hpp>
#include <strata/vision/darknet.hpp>
#include <strata/vision/detection.hpp>
#include <strata/vision/detector_description.hpp>
#include <strata/vision/synthetic_detection.hpp>
#include <strata/vision/yolo_loss.hpp>

#include "flag_checks.hpp"

using namespace strata;

namespace {

struct Flags {
  std::string cfg = "tests/vision/fixtures/yolov4-tiny.cfg", hub = "detection.db", out = "detect_train_out";
  int64_t size = 128, train = 4000, test = 300, epochs = 12, batch = 16, warmup = 200, pictures = 8;
  double lr = 1e-3, iou_normalizer = 0, min_ap50 = 0;
};

using vision::LabeledBox;

// A training batch: images [B, S, S, 3] and each image's boxes in input pixels.
struct Batch {
  Tensor images;
  std::vector<std::vector<LabeledBox>> truths;
};

// Flip half the images left-right, then letterbox jitter: the image shrunk to 60..100% of the
// input at a random place, the rest grey (the generated images are square, so the letterbox
// itself is the identity).
Batch augmented_batch(const data::Dataset& set, const std::vector<int64_t>& indices, int64_t size, std::mt19937_64& rng) {
  Batch b;
  std::vector<Tensor> images;
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t i : indices) {
    const data::Example e = set.get(i);
    data::AnnotatedImage a{e[0], {}, {}};
    const std::vector<LabeledBox> truth = vision::labeled_boxes(e[1], e[2]);
    for (const LabeledBox& t : truth) a.boxes.push_back(t.box);
    if (unit(rng) < 0.5) a = data::flip_left_right(a);
    const auto side = static_cast<int64_t>(std::lround(size * (0.6 + 0.4 * unit(rng))));
    const auto left = static_cast<int64_t>(unit(rng) * static_cast<double>(size - side + 1));
    const auto top = static_cast<int64_t>(unit(rng) * static_cast<double>(size - side + 1));
    const vision::LetterboxedImage lb = vision::letterbox_at(a.image, size, size, std::min(side, size), std::min(side, size),
                                                             std::min(left, size - side), std::min(top, size - side));
    images.push_back(lb.image);
    std::vector<LabeledBox> boxes;
    for (size_t k = 0; k < truth.size(); ++k) boxes.push_back({lb.transform.to_input(a.boxes[k]), truth[k].label});
    b.truths.push_back(std::move(boxes));
  }
  b.images = stack(images);
  return b;
}

// The detections of every image of `set` (decoded at a low threshold, as COCO evaluates) and its truths.
struct Predictions {
  std::vector<std::vector<vision::Detection>> found;
  std::vector<std::vector<LabeledBox>> truths;
};

Predictions predict_all(nn::Model& net, const std::vector<vision::YoloHead>& heads, const data::Dataset& set, double threshold) {
  NoGradGuard no_grad;
  net.train(false);
  Predictions p;
  for (int64_t start = 0; start < set.size(); start += 32) {
    std::vector<Tensor> images;
    for (int64_t i = start; i < std::min(set.size(), start + 32); ++i) {
      const data::Example e = set.get(i);
      images.push_back(e[0]);
      p.truths.push_back(vision::labeled_boxes(e[1], e[2]));
    }
    const auto found = vision::decode_yolo(net.run({stack(images)}), heads, {.score_threshold = threshold});
    p.found.insert(p.found.end(), found.begin(), found.end());
  }
  net.train(true);
  return p;
}

// uint8 image [S, S, 3] with `found` drawn, each named with its class (and score, when >= 0).
Tensor annotated(const Tensor& image01, const std::vector<vision::Detection>& found) {
  const std::vector<std::string>& names = vision::synthetic_detection_classes();
  const Tensor image = cast(clamp(image01 * 255.0 + 0.5, 0, 255), kUInt8);
  std::vector<float> boxes;
  std::vector<int64_t> classes;
  std::vector<std::string> labels;
  for (const vision::Detection& d : found) {
    // draw_boxes takes inclusive pixel coordinates; ours are pixel edges.
    boxes.insert(boxes.end(), {static_cast<float>(d.box.x1), static_cast<float>(d.box.y1), static_cast<float>(d.box.x2) - 1,
                               static_cast<float>(d.box.y2) - 1});
    classes.push_back(d.label);
    char text[64];
    if (d.score >= 0) std::snprintf(text, sizeof text, "%s %.2f", names[d.label].c_str(), d.score);
    else std::snprintf(text, sizeof text, "%s", names[d.label].c_str());
    labels.push_back(text);
  }
  const auto k = static_cast<int64_t>(classes.size());
  return k == 0 ? image : data::draw_boxes(image, from_vector(boxes, {k, 4}), classes, 1, false, labels);
}

// The first 8 training images with their true boxes, as one grid (the data set's picture).
void write_dataset_picture(const data::Dataset& train, const std::string& path) {
  std::vector<Tensor> images;
  for (int64_t i = 0; i < std::min<int64_t>(8, train.size()); ++i) {
    const data::Example e = train.get(i);
    std::vector<vision::Detection> truth;
    for (const LabeledBox& t : vision::labeled_boxes(e[1], e[2])) truth.push_back({t.box, -1, t.label});
    images.push_back(annotated(e[0], truth));
  }
  data::save_images(stack(images), path, 0, 0, 2);
  std::printf("training images with their boxes: %s\n", path.c_str());
}

// The first test images with their detections above 0.3 drawn and named, one PNG each.
void write_pictures(const data::Dataset& test, const Predictions& p, int64_t count, const std::string& out) {
  for (int64_t i = 0; i < std::min(count, test.size()); ++i) {
    std::vector<vision::Detection> shown;
    for (const vision::Detection& d : p.found[i])
      if (d.score >= 0.3) shown.push_back(d);
    data::write_image(out + "/test_" + std::to_string(i) + ".png", annotated(test.get(i)[0], shown));
  }
  if (count > 0 && test.size() > 0)
    std::printf("annotated test images: %s/test_0.png .. test_%lld.png\n", out.c_str(), static_cast<long long>(std::min(count, test.size()) - 1));
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_detect_train: YOLOv4-tiny from darknet's cfg, trained from scratch on generated shapes, into the hub");
  app.add_option("--cfg", f.cfg, "darknet .cfg of the network (yolov4-tiny.cfg)")->type_name("FILE")->capture_default_str();
  app.add_option("--size", f.size, "input width and height (a multiple of 32); the cfg's anchors are scaled to it")
      ->type_name("PIXELS")->check(flag_checks::at_least(32))->capture_default_str();
  app.add_option("--train", f.train, "training images")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--test", f.test, "held-out test images (another seed)")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the training images")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--batch", f.batch, "images per step")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--lr", f.lr, "Adam's peak learning rate")->type_name("RATE")->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--warmup", f.warmup, "steps of linear warm-up (darknet's burn_in)")->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--iou-normalizer", f.iou_normalizer, "weight of the CIoU box loss (0: the cfg's, 0.07, made for darknet's long runs)")
      ->type_name("W")->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("--out", f.out, "folder for the annotated test images")->type_name("DIR")->capture_default_str();
  app.add_option("--pictures", f.pictures, "test images to annotate")->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--min-ap50", f.min_ap50, "exit status 1 when the test AP50 is below this")->type_name("FRACTION")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (f.size % 32 != 0) {
    std::fprintf(stderr, "--size: %lld is not a multiple of 32 (YOLOv4-tiny's largest stride)\n", static_cast<long long>(f.size));
    return 2;
  }
  manual_seed(1);
  std::filesystem::create_directories(f.out);
  const std::vector<std::string>& names = vision::synthetic_detection_classes();
  const auto classes = static_cast<int64_t>(names.size());
  // The cfg's anchors are for its own input size (416): scaled to ours, so they fit our objects.
  const int64_t cfg_width = vision::read_darknet_cfg(f.cfg).width;
  vision::DarknetNetwork net = vision::read_darknet_cfg(f.cfg, {.width = f.size, .height = f.size, .classes = classes});
  for (vision::YoloHead& h : net.heads) {
    for (auto& [w, hh] : h.anchors) w *= static_cast<double>(f.size) / cfg_width, hh *= static_cast<double>(f.size) / cfg_width;
    if (f.iou_normalizer > 0) h.iou_normalizer = f.iou_normalizer;
  }
  std::printf("yolov4-tiny at %lldx%lld, %lld classes: %lld weights, %zu heads\n", static_cast<long long>(f.size),
              static_cast<long long>(f.size), static_cast<long long>(classes), static_cast<long long>(net.model->count_params()),
              net.heads.size());

  const vision::SyntheticDetectionOptions shapes{.image_size = f.size};
  const data::Dataset train_set = vision::synthetic_detection(f.train, 1, shapes), test_set = vision::synthetic_detection(f.test, 2, shapes);
  hub::Hub store = hub::Hub::open(f.hub);
  const nlohmann::json config = {{"cfg", f.cfg}, {"size", f.size}, {"train", f.train}, {"epochs", f.epochs},
                                 {"batch", f.batch}, {"lr", f.lr}, {"warmup", f.warmup}, {"iou_normalizer", net.heads.front().iou_normalizer}};
  hub::Run run = store.create_run("detect_yolov4_tiny", config.dump());
  optim::Adam adam(net.model->trainable_weights(), {.lr = f.lr});
  const int64_t steps_per_epoch = (f.train + f.batch - 1) / f.batch, total_steps = steps_per_epoch * f.epochs;
  std::mt19937_64 rng(7);
  const auto started = std::chrono::steady_clock::now();
  int64_t step = 0;
  for (int64_t epoch = 0; epoch < f.epochs; ++epoch) {
    const std::vector<int64_t> order = data::permutation(f.train, 100 + static_cast<uint64_t>(epoch));
    double box = 0, obj = 0, cls = 0;
    for (int64_t s = 0; s < steps_per_epoch; ++s, ++step) {
      // Warm-up from 0, then a cosine to 0 over the remaining steps.
      const double progress = static_cast<double>(step - f.warmup) / static_cast<double>(std::max<int64_t>(1, total_steps - f.warmup));
      adam.set_learning_rate(step < f.warmup ? f.lr * static_cast<double>(step + 1) / static_cast<double>(f.warmup)
                                             : f.lr * 0.5 * (1 + std::cos(3.141592653589793 * progress)));
      const std::vector<int64_t> idx(order.begin() + s * f.batch, order.begin() + std::min(f.train, (s + 1) * f.batch));
      const Batch b = augmented_batch(train_set, idx, f.size, rng);
      const vision::YoloLoss loss = vision::yolo_loss(net.model->run({b.images}), net.heads, b.truths);
      adam.zero_grad();
      loss.total.backward();
      adam.step();
      box += loss.box.item_double(), obj += loss.objectness.item_double(), cls += loss.classes.item_double();
    }
    const double n = static_cast<double>(steps_per_epoch);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("epoch %lld/%lld: loss %.4f (box %.4f, objectness %.4f, classes %.4f), %.0f s\n", static_cast<long long>(epoch + 1),
                static_cast<long long>(f.epochs), (box + obj + cls) / n, box / n, obj / n, cls / n, seconds);
    std::fflush(stdout);
    run.log(epoch, hub::Split::train, {{"loss", (box + obj + cls) / n}, {"box", box / n}, {"objectness", obj / n}, {"classes", cls / n}});
  }
  const Predictions p = predict_all(*net.model, net.heads, test_set, 0.005);
  const vision::CocoMetrics m = vision::coco_evaluate(p.found, p.truths, classes);
  std::printf("test AP50 %.4f, AP@[.5:.95] %.4f (%lld held-out images)\n", m.ap50, m.ap, static_cast<long long>(f.test));
  run.log(f.epochs, hub::Split::test, {{"ap50", m.ap50}, {"ap", m.ap}});
  run.finish();
  const vision::DetectorDescription description{f.size, f.size, net.heads, names};
  const int64_t version = train::save_model(store, "yolov4_tiny_shapes", *net.model,
                                            {.metrics = {{"ap50", m.ap50}, {"ap", m.ap}},
                                             .values = {{"detector", vision::detector_json(description)}},
                                             .run_id = run.id()});
  std::printf("saved yolov4_tiny_shapes version %lld in %s (run %lld)\n", static_cast<long long>(version), f.hub.c_str(),
              static_cast<long long>(run.id()));
  write_pictures(test_set, p, f.pictures, f.out);
  write_dataset_picture(train_set, f.out + "/dataset.png");
  return m.ap50 >= f.min_ap50 ? 0 : 1;
}
