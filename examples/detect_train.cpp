// Object detection (docs/detection.md): YOLOv4-tiny, built from darknet's published cfg, trained
// from scratch on the generated detection set (5 shape classes on cluttered backgrounds,
// strata/vision/synthetic_detection.hpp) with darknet's loss (CIoU boxes, objectness with
// ignore_thresh, class BCE), Adam with a linear warm-up then a cosine, flips and letterbox
// jitter. Reports COCO AP50 and AP@[.5:.95] on held-out images, saves the model whole in the hub
// with its heads (the version's value "detector", read by `strata detect`), and writes test
// images with their detections drawn. `--voc DIR` trains on a Pascal VOC-format folder instead
// (e.g. VOC 2007), and `--export-voc DIR` writes the generated set as one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <strata/data/image_codec.hpp>
#include <strata/strata.hpp>
#include <strata/vision/annotations.hpp>
#include <strata/vision/coco_eval.hpp>
#include <strata/vision/darknet.hpp>
#include <strata/vision/detection.hpp>
#include <strata/vision/detector_description.hpp>
#include <strata/vision/synthetic_detection.hpp>
#include <strata/vision/voc_export.hpp>
#include <strata/vision/yolo_loss.hpp>
#include <strata/viz/visualize.hpp>

#include "flag_checks.hpp"

using namespace strata;

namespace {

struct Flags {
  std::string cfg = "tests/vision/fixtures/yolov4-tiny.cfg", hub = "detection.db", out = "detect_train_out";
  std::string voc, export_voc;
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
    vision::AnnotatedImage a{e[0], {}, {}};
    const std::vector<LabeledBox> truth = vision::labeled_boxes(e[1], e[2]);
    for (const LabeledBox& t : truth) a.boxes.push_back(t.box);
    if (unit(rng) < 0.5) a = vision::flip_left_right(a);
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

// An example as the network sees it: letterboxed to size x size in [0, 1], its true boxes moved
// with it. The generated images are that already and pass unchanged.
struct NetworkView {
  Tensor image;
  std::vector<LabeledBox> truths;
};

NetworkView network_view(const data::Example& e, int64_t size) {
  std::vector<LabeledBox> truths = vision::labeled_boxes(e[1], e[2]);
  if (e[0].dtype() == kFloat32 && e[0].size(0) == size && e[0].size(1) == size) return {e[0], std::move(truths)};
  const vision::LetterboxedImage lb = vision::letterbox(e[0], size, size);
  for (LabeledBox& t : truths) t.box = lb.transform.to_input(t.box);
  return {lb.image, std::move(truths)};
}

// The images trained and evaluated on, and the class names of their labels.
struct DetectionData {
  data::Dataset train, test;
  std::vector<std::string> classes;
};

// The examples of `folder` whose ids are listed, in the list's order; an id not in it is an error.
data::Dataset listed(const vision::VocFolder& folder, const std::vector<std::string>& ids, const std::string& set) {
  std::vector<int64_t> indices;
  for (const std::string& id : ids) {
    const auto it = std::find(folder.ids.begin(), folder.ids.end(), id);
    STRATA_CHECK(it != folder.ids.end(), "strata_detect_train: ImageSets/Main/", set, ".txt lists '", id,
                 "', which has no annotation");
    indices.push_back(it - folder.ids.begin());
  }
  return folder.dataset.subset(std::move(indices));
}

// The generated set (--train images of seed 1, --test of seed 2), or the VOC folder --voc: split
// by its ImageSets/Main/train.txt and test.txt (or trainval.txt and val.txt) when it has them,
// else its last --test images held out; at most --train training images either way.
DetectionData load_data(const Flags& f) {
  if (f.voc.empty()) {
    const vision::SyntheticDetectionOptions shapes{.image_size = f.size};
    return {vision::synthetic_detection(f.train, 1, shapes), vision::synthetic_detection(f.test, 2, shapes),
            vision::synthetic_detection_classes()};
  }
  const vision::VocFolder folder = vision::voc_folder(f.voc);
  std::vector<std::string> train_ids = vision::read_voc_image_set(f.voc, "train"),
                           test_ids = vision::read_voc_image_set(f.voc, "test");
  if (train_ids.empty() || test_ids.empty())
    train_ids = vision::read_voc_image_set(f.voc, "trainval"), test_ids = vision::read_voc_image_set(f.voc, "val");
  const int64_t n = folder.dataset.size(), held_out = std::min(f.test, n - 1);
  const bool lists = !train_ids.empty() && !test_ids.empty();
  STRATA_CHECK(lists || n >= 2, "strata_detect_train: ", f.voc, " holds ", n,
               " annotated images; at least 2 are needed");
  DetectionData d{lists ? listed(folder, train_ids, "train") : folder.dataset.take(n - held_out),
                  lists ? listed(folder, test_ids, "test") : folder.dataset.skip(n - held_out), folder.classes};
  if (d.train.size() > f.train) d.train = d.train.take(f.train);
  std::printf("VOC folder %s: %lld training and %lld test images, %zu classes\n", f.voc.c_str(),
              static_cast<long long>(d.train.size()), static_cast<long long>(d.test.size()), d.classes.size());
  return d;
}

// --export-voc: the generated training and test images as a VOC folder, split by
// ImageSets/Main/train.txt and test.txt.
void export_voc(const DetectionData& d, const std::string& root) {
  for (const auto& [set, name] : {std::pair{&d.train, "train"}, std::pair{&d.test, "test"}}) {
    std::vector<std::string> ids;
    for (int64_t i = 0; i < set->size(); ++i) {
      const data::Example e = set->get(i);
      std::vector<vision::VocObject> objects;
      for (const LabeledBox& t : vision::labeled_boxes(e[1], e[2]))
        objects.push_back({t.box, d.classes[t.label], false});
      char id[32];
      std::snprintf(id, sizeof id, "%s_%06lld", name, static_cast<long long>(i));
      vision::write_voc_example(root, id, cast(clamp(e[0] * 255.0 + 0.5, 0, 255), kUInt8), objects);
      ids.push_back(id);
    }
    vision::write_voc_image_set(root, name, ids);
  }
  std::printf("wrote %lld training and %lld test images as a VOC folder: %s\n", static_cast<long long>(d.train.size()),
              static_cast<long long>(d.test.size()), root.c_str());
}

// The detections of every image of `set` (decoded at a low threshold, as COCO evaluates) and its truths.
struct Predictions {
  std::vector<std::vector<vision::Detection>> found;
  std::vector<std::vector<LabeledBox>> truths;
};

Predictions predict_all(nn::Model& net, const std::vector<vision::YoloHead>& heads, const data::Dataset& set,
                        int64_t size, double threshold) {
  NoGradGuard no_grad;
  net.train(false);
  Predictions p;
  for (int64_t start = 0; start < set.size(); start += 32) {
    std::vector<Tensor> images;
    for (int64_t i = start; i < std::min(set.size(), start + 32); ++i) {
      NetworkView v = network_view(set.get(i), size);
      images.push_back(v.image);
      p.truths.push_back(std::move(v.truths));
    }
    const auto found = vision::decode_yolo(net.run({stack(images)}), heads, {.score_threshold = threshold});
    p.found.insert(p.found.end(), found.begin(), found.end());
  }
  net.train(true);
  return p;
}

// uint8 image [S, S, 3] with `found` drawn, each named with its class (and score, when >= 0).
Tensor annotated(const Tensor& image01, const std::vector<vision::Detection>& found,
                 const std::vector<std::string>& names) {
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
  return k == 0 ? image : viz::draw_boxes(image, from_vector(boxes, {k, 4}), classes, 1, false, labels);
}

// The first 8 training images with their true boxes, as one grid (the data set's picture).
void write_dataset_picture(const DetectionData& d, int64_t size, const std::string& path) {
  std::vector<Tensor> images;
  for (int64_t i = 0; i < std::min<int64_t>(8, d.train.size()); ++i) {
    const NetworkView v = network_view(d.train.get(i), size);
    std::vector<vision::Detection> truth;
    for (const LabeledBox& t : v.truths) truth.push_back({t.box, -1, t.label});
    images.push_back(annotated(v.image, truth, d.classes));
  }
  viz::save_images(stack(images), path, 0, 0, 2);
  std::printf("training images with their boxes: %s\n", path.c_str());
}

// The first test images with their detections above 0.3 drawn and named, one PNG each.
void write_pictures(const DetectionData& d, const Predictions& p, int64_t size, int64_t count, const std::string& out) {
  const data::Dataset& test = d.test;
  for (int64_t i = 0; i < std::min(count, test.size()); ++i) {
    std::vector<vision::Detection> shown;
    for (const vision::Detection& d : p.found[i])
      if (d.score >= 0.3) shown.push_back(d);
    data::write_image(out + "/test_" + std::to_string(i) + ".png",
                      annotated(network_view(test.get(i), size).image, shown, d.classes));
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
  app.add_option("--test", f.test,
                 "held-out test images (another seed; with --voc and no test list, the folder's last ones)")
      ->type_name("N")
      ->check(flag_checks::at_least(1))
      ->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the training images")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--batch", f.batch, "images per step")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--lr", f.lr, "Adam's peak learning rate")->type_name("RATE")->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--warmup", f.warmup, "steps of linear warm-up (darknet's burn_in)")->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--iou-normalizer", f.iou_normalizer, "weight of the CIoU box loss (0: the cfg's, 0.07, made for darknet's long runs)")
      ->type_name("W")->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("--out", f.out, "folder for the annotated test images")->type_name("DIR")->capture_default_str();
  app.add_option("--pictures", f.pictures, "test images to annotate")->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--voc", f.voc,
                 "train on this Pascal VOC-format folder (Annotations/, JPEGImages/) instead of generated images")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  app.add_option("--export-voc", f.export_voc,
                 "write the generated --train and --test images as a VOC folder, then exit")
      ->type_name("DIR");
  app.add_option("--min-ap50", f.min_ap50, "exit status 1 when the test AP50 is below this")->type_name("FRACTION")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (f.size % 32 != 0) {
    std::fprintf(stderr, "--size: %lld is not a multiple of 32 (YOLOv4-tiny's largest stride)\n", static_cast<long long>(f.size));
    return 2;
  }
  manual_seed(1);
  std::filesystem::create_directories(f.out);
  const DetectionData d = load_data(f);
  if (!f.export_voc.empty()) {
    export_voc(d, f.export_voc);
    return 0;
  }
  const std::vector<std::string>& names = d.classes;
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

  const data::Dataset &train_set = d.train, &test_set = d.test;
  const int64_t train_size = train_set.size();
  hub::Hub store = hub::Hub::open(f.hub);
  const nlohmann::json config = {
      {"cfg", f.cfg}, {"size", f.size},     {"train", train_size},
      {"voc", f.voc}, {"epochs", f.epochs}, {"batch", f.batch},
      {"lr", f.lr},   {"warmup", f.warmup}, {"iou_normalizer", net.heads.front().iou_normalizer}};
  hub::Run run = store.create_run("detect_yolov4_tiny", config.dump());
  optim::Adam adam(net.model->trainable_weights(), {.lr = f.lr});
  const int64_t steps_per_epoch = (train_size + f.batch - 1) / f.batch, total_steps = steps_per_epoch * f.epochs;
  std::mt19937_64 rng(7);
  const auto started = std::chrono::steady_clock::now();
  int64_t step = 0;
  for (int64_t epoch = 0; epoch < f.epochs; ++epoch) {
    const std::vector<int64_t> order = data::permutation(train_size, 100 + static_cast<uint64_t>(epoch));
    double box = 0, obj = 0, cls = 0;
    for (int64_t s = 0; s < steps_per_epoch; ++s, ++step) {
      // Warm-up from 0, then a cosine to 0 over the remaining steps.
      const double progress = static_cast<double>(step - f.warmup) / static_cast<double>(std::max<int64_t>(1, total_steps - f.warmup));
      adam.set_learning_rate(step < f.warmup ? f.lr * static_cast<double>(step + 1) / static_cast<double>(f.warmup)
                                             : f.lr * 0.5 * (1 + std::cos(3.141592653589793 * progress)));
      const std::vector<int64_t> idx(order.begin() + s * f.batch,
                                     order.begin() + std::min(train_size, (s + 1) * f.batch));
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
  const Predictions p = predict_all(*net.model, net.heads, test_set, f.size, 0.005);
  const vision::CocoMetrics m = vision::coco_evaluate(p.found, p.truths, classes);
  std::printf("test AP50 %.4f, AP@[.5:.95] %.4f (%lld held-out images)\n", m.ap50, m.ap,
              static_cast<long long>(test_set.size()));
  run.log(f.epochs, hub::Split::test, {{"ap50", m.ap50}, {"ap", m.ap}});
  run.finish();
  const vision::DetectorDescription description{f.size, f.size, net.heads, names};
  const std::string model_name = f.voc.empty() ? "yolov4_tiny_shapes" : "yolov4_tiny_voc";
  const int64_t version = lifecycle::save_model(store, model_name, *net.model,
                                                {.metrics = {{"ap50", m.ap50}, {"ap", m.ap}},
                                                 .values = {{"detector", vision::detector_json(description)}},
                                                 .run_id = run.id()});
  std::printf("saved %s version %lld in %s (run %lld)\n", model_name.c_str(), static_cast<long long>(version),
              f.hub.c_str(), static_cast<long long>(run.id()));
  write_pictures(d, p, f.size, f.pictures, f.out);
  write_dataset_picture(d, f.size, f.out + "/dataset.png");
  return m.ap50 >= f.min_ap50 ? 0 : 1;
}
