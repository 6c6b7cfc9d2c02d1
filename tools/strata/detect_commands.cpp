#include "detect_commands.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "existing_hub.hpp"
#include "option_checks.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/ops/shape.hpp"
#include "strata/vision/darknet.hpp"
#include "strata/vision/detection.hpp"
#include "strata/vision/detector_description.hpp"
#include "strata/viz/visualize.hpp"

namespace strata::cli {
namespace {

struct DetectArgs {
  std::string hub, model, cfg, weights, names, out = "detections";
  std::vector<std::string> images;
  double threshold = 0.25, nms = 0.45;
};

struct Detector {
  std::shared_ptr<nn::Model> model;
  vision::DetectorDescription description;
};

// darknet's .names: one class name per line; at most 1 MiB.
std::vector<std::string> read_names(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  STRATA_CHECK(in.good(), "cannot read the class names file '", path, "'");
  const auto size = std::filesystem::file_size(path);
  STRATA_CHECK(size <= (1u << 20), "the class names file '", path, "' has ", size, " bytes; at most 1 MiB is read");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

Detector load_detector(const DetectArgs& a) {
  Detector d;
  if (!a.hub.empty()) {
    require_existing_hub(a.hub);
    hub::Hub store = hub::Hub::open(a.hub);
    const hub::VersionRef ref = hub::parse_version_ref(a.model);
    const hub::LoadedModel loaded = store.load_model(ref.name, ref.version);
    const auto it = loaded.info.meta.values.find("detector");
    STRATA_CHECK(it != loaded.info.meta.values.end(), "model ", loaded.info.name, ":", loaded.info.version,
                 " has no \"detector\" value (its heads); save it with strata_detect_train or give --cfg and --weights");
    d.description = vision::parse_detector_json(it->second);
    d.model = lifecycle::static_model(loaded);
    return d;
  }
  vision::DarknetNetwork net = vision::read_darknet_cfg(a.cfg);
  vision::load_darknet_weights(net, a.weights);
  d.model = net.model;
  d.description = {net.width, net.height, net.heads, {}};
  const int64_t classes = net.heads.front().classes;
  d.description.class_names = a.names.empty() ? std::vector<std::string>{} : read_names(a.names);
  STRATA_CHECK(a.names.empty() || static_cast<int64_t>(d.description.class_names.size()) == classes, "the names file '",
               a.names, "' has ", d.description.class_names.size(), " names but the network has ", classes, " classes");
  for (int64_t c = static_cast<int64_t>(d.description.class_names.size()); c < classes; ++c)
    d.description.class_names.push_back("class " + std::to_string(c));
  return d;
}

void detect(const DetectArgs& a) {
  STRATA_CHECK(a.hub.empty() != a.cfg.empty(), "give either --hub with --model, or --cfg with --weights");
  STRATA_CHECK(a.hub.empty() || !a.model.empty(), "--hub needs --model NAME[:VERSION]");
  STRATA_CHECK(a.cfg.empty() || !a.weights.empty(), "--cfg needs --weights FILE");
  const Detector d = load_detector(a);
  const vision::YoloHead& head = d.description.heads.front();
  const vision::NmsOptions nms{a.nms, head.nms_kind == "diounms" ? vision::NmsKind::diou : vision::NmsKind::greedy, head.beta_nms};
  std::filesystem::create_directories(a.out);
  NoGradGuard no_grad;
  d.model->train(false);
  for (const std::string& path : a.images) {
    const Tensor image = data::read_image(path, 3);
    const vision::LetterboxedImage lb = vision::letterbox(image, d.description.width, d.description.height);
    const auto found = vision::decode_yolo(d.model->run({unsqueeze(lb.image, 0)}), d.description.heads,
                                           {.score_threshold = a.threshold, .nms = nms})[0];
    std::vector<float> boxes;
    std::vector<int64_t> classes;
    std::vector<std::string> labels;
    std::printf("%s: %zu detections\n", path.c_str(), found.size());
    for (const vision::Detection& det : found) {
      const vision::Box b = lb.transform.to_original(det.box);
      const std::string& name = d.description.class_names.at(static_cast<size_t>(det.label));
      std::printf("  %s %.3f [%.1f, %.1f, %.1f, %.1f]\n", name.c_str(), det.score, b.x1, b.y1, b.x2, b.y2);
      boxes.insert(boxes.end(), {static_cast<float>(b.x1), static_cast<float>(b.y1), static_cast<float>(b.x2) - 1, static_cast<float>(b.y2) - 1});
      classes.push_back(det.label);
      char text[320];
      std::snprintf(text, sizeof text, "%s %.2f", name.c_str(), det.score);
      labels.push_back(text);
    }
    const auto k = static_cast<int64_t>(classes.size());
    const Tensor drawn = k == 0 ? image : viz::draw_boxes(image, from_vector(boxes, {k, 4}), classes, 2, false, labels);
    const std::string written = (std::filesystem::path(a.out) / (std::filesystem::path(path).stem().string() + ".png")).string();
    data::write_image(written, drawn);
    std::printf("  drawn: %s\n", written.c_str());
  }
}

}  // namespace

void add_detect_commands(CLI::App& app) {
  auto args = std::make_shared<DetectArgs>();
  CLI::App* cmd = app.add_subcommand("detect", "Detect objects in images with a YOLO model (hub or darknet files)");
  cmd->add_option("--hub", args->hub, "SQLite path or postgresql:// URL of the hub holding the model")->type_name("URL");
  cmd->add_option("--model", args->model, "the hub model, NAME or NAME:VERSION (saved by strata_detect_train)");
  cmd->add_option("--cfg", args->cfg, "a darknet .cfg instead of a hub model")->type_name("FILE");
  cmd->add_option("--weights", args->weights, "its darknet .weights")->type_name("FILE");
  cmd->add_option("--names", args->names, "its class names, one a line (darknet's .names)")->type_name("FILE");
  cmd->add_option("--threshold", args->threshold, "score threshold (objectness x class probability)")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--nms", args->nms, "class-wise NMS: IoU above which the lower score is dropped")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--out", args->out, "folder for the annotated images (PNG, named after each image)")->type_name("DIR")->capture_default_str();
  cmd->add_option("images", args->images, "PNG or JPEG files")->required();
  cmd->callback([args] { detect(*args); });
}

}  // namespace strata::cli
