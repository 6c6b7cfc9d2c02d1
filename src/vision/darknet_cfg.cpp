// The .cfg reader: darknet's sections, each built with Strata's own layers so that the model
// saves whole and exports like any other (docs/darknet.md has the table of what becomes what).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "darknet_sections.hpp"
#include "data/file_bytes.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/merge.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"
#include "strata/vision/darknet.hpp"

namespace strata::vision {
namespace {

using detail::CfgSection;

// Bounds on what a cfg may ask for: far above darknet's published networks, low enough that a
// hostile file cannot make the shapes or counts overflow.
constexpr int64_t kMaxImageSize = 8192;  // input and feature-map height and width
constexpr int64_t kMaxChannels = 4096;   // input channels
constexpr int64_t kMaxFilters = 16384;
constexpr int64_t kMaxKernel = 31;
constexpr int64_t kMaxStride = 32;
constexpr int64_t kMaxClasses = 10000;
constexpr int64_t kMaxAnchors = 64;
constexpr size_t kMaxRouteInputs = 64;
constexpr int64_t kMaxRouteChannels = kMaxFilters * 64;  // routes of routes cannot grow without bound
constexpr int64_t kMaxIndex = 1 << 20;  // a layer index as written; checked against the layers before

const std::initializer_list<const char*> kActivations = {"linear", "leaky", "mish", "logistic", "relu", "swish"};

// darknet's activation names as Strata's; leaky is darknet's 0.1 slope.
nn::Activation activation(const std::string& name) {
  if (name == "leaky") return "lrelu0.1";
  if (name == "logistic") return "sigmoid";
  if (name == "linear") return {};
  return name;  // mish, relu, swish: the same names
}

// A [yolo] section, read ahead of the layers: its class count decides the filters of the
// convolution before it.
YoloHead read_yolo(CfgSection& s, const DarknetOptions& options) {
  YoloHead head;
  head.classes = s.integer("classes", 20, 1, kMaxClasses);
  if (options.classes > 0) head.classes = options.classes;
  const int64_t num = s.integer("num", 1, 1, kMaxAnchors);
  const std::vector<double> anchors = s.reals("anchors", 0, 1e5, 2 * kMaxAnchors);
  STRATA_CHECK(anchors.size() == static_cast<size_t>(2 * num), s.where("anchors"), ": num=", num, " needs ", 2 * num,
               " values (w, h per anchor), got ", anchors.size());
  bool has_mask = false;
  std::vector<int64_t> mask = s.integers("mask", 0, num - 1, kMaxAnchors, &has_mask);
  if (!has_mask)
    for (int64_t a = 0; a < num; ++a) mask.push_back(a);
  for (int64_t a : mask) head.anchors.emplace_back(anchors[2 * a], anchors[2 * a + 1]);
  head.scale_x_y = s.real("scale_x_y", 1.0, 0.5, 10.0);
  head.ignore_thresh = s.real("ignore_thresh", 0.5, 0, 1);
  head.iou_normalizer = s.real("iou_normalizer", 0.75, 0, 1000);
  head.cls_normalizer = s.real("cls_normalizer", 1.0, 0, 1000);
  head.iou_thresh = s.real("iou_thresh", 1.0, 0, 1);
  head.beta_nms = s.real("beta_nms", 0.6, 0, 10);
  head.nms_kind = s.text("nms_kind", "default", {"default", "greedynms", "diounms", "cornersnms"});
  // new_coords=1 (Scaled-YOLOv4) decodes differently; only darknet's classic decoding is described.
  s.integer("new_coords", 0, 0, 0);
  // The loss and augmentation settings the reader has no use for (docs/darknet.md).
  s.ignore({"jitter", "truth_thresh", "iou_loss", "iou_thresh_kind", "random", "resize", "max_delta", "max",
            "label_smooth_eps", "focal_loss", "obj_normalizer", "delta_normalizer", "objectness_smooth",
            "show_details"});
  s.finish();
  return head;
}

class CfgBuilder {
 public:
  CfgBuilder(std::vector<CfgSection> sections, const DarknetOptions& options)
      : sections_(std::move(sections)), options_(options) {}

  DarknetNetwork build() {
    STRATA_CHECK(!sections_.empty() && (sections_[0].name() == "net" || sections_[0].name() == "network"),
                 "darknet cfg: the first section must be [net]",
                 sections_.empty() ? std::string(", the text has none") : ", got " + sections_[0].where());
    STRATA_CHECK(sections_.size() > 1, sections_[0].where(), ": no layers follow [net]");
    read_net(sections_[0]);
    for (size_t i = 1; i < sections_.size(); ++i)
      if (sections_[i].name() == "yolo") heads_.emplace(i, read_yolo(sections_[i], options_));
    auto x = nn::Input({-1, net_.height, net_.width, net_.channels}, "image");
    for (size_t i = 1; i < sections_.size(); ++i) outs_.push_back(layer(static_cast<int64_t>(i - 1), sections_[i], x));
    if (yolo_outputs_.empty()) yolo_outputs_.push_back(*outs_.back());  // a backbone: its last layer
    net_.model = std::make_shared<nn::Model>(std::vector<nn::Symbol>{x}, yolo_outputs_, "darknet");
    return std::move(net_);
  }

 private:
  void read_net(CfgSection& s) {
    net_.width = s.integer("width", 416, 1, kMaxImageSize);
    net_.height = s.integer("height", 416, 1, kMaxImageSize);
    net_.channels = s.integer("channels", 3, 1, kMaxChannels);
    STRATA_CHECK(options_.width >= 0 && options_.width <= kMaxImageSize && options_.height >= 0 &&
                     options_.height <= kMaxImageSize,
                 "darknet options: width and height must be in [0, ", kMaxImageSize, "], got ", options_.width, "x",
                 options_.height);
    STRATA_CHECK(options_.classes >= 0 && options_.classes <= kMaxClasses, "darknet options: classes must be in [0, ",
                 kMaxClasses, "], got ", options_.classes);
    if (options_.width > 0) net_.width = options_.width;
    if (options_.height > 0) net_.height = options_.height;
    // Training settings: accepted, no effect on the network built (docs/darknet.md lists them).
    s.ignore({"batch", "subdivisions", "momentum", "decay", "angle", "saturation", "exposure", "hue", "learning_rate",
              "burn_in", "max_batches", "policy", "steps", "scales", "step", "gamma", "power", "mosaic", "cutmix",
              "mixup", "blur", "gaussian_noise", "letter_box", "flip", "aspect", "jitter", "max_crop", "min_crop",
              "adam", "B1", "B2", "eps", "random", "resize_step", "label_smooth_eps", "ema_alpha", "mosaic_bound",
              "track", "time_steps", "augment_speed", "sequential_subdivisions", "try_fix_nan", "loss_scale",
              "dynamic_minibatch", "optimized_memory", "workspace_size_limit_MB", "weights_reject_freq",
              "equidistant_point", "num_sigmas_reject_badlabels", "badlabels_rejection_percentage", "adversarial_lr",
              "attention", "contrastive", "unsupervised", "use_cuda_graph", "train_only_bn", "max_chart_loss",
              "seed"});
    s.finish();
  }

  // The output of layer `index` as a later layer refers to it (relative when negative).
  nn::Symbol output_of(int64_t current, int64_t ref, CfgSection& s, const char* key) {
    const int64_t index = ref < 0 ? current + ref : ref;
    STRATA_CHECK(index >= 0 && index < current, s.where(key), ": layer ", ref, " is out of range for layer ", current,
                 " (layers 0..", current - 1, " come before it)");
    STRATA_CHECK(outs_[index].has_value(), s.where(key), ": layer ", index,
                 " is a [yolo] layer, whose decoded output this reader does not build");
    return *outs_[index];
  }

  nn::Symbol previous(int64_t current, const nn::Symbol& input, CfgSection& s) {
    return current == 0 ? input : output_of(current, -1, s, nullptr);
  }

  void count_parameters(int64_t n, CfgSection& s) {
    parameters_ += n;
    STRATA_CHECK(parameters_ <= options_.max_parameters, s.where(), ": the network passes ", options_.max_parameters,
                 " parameters (DarknetOptions::max_parameters)");
  }

  std::optional<nn::Symbol> layer(int64_t i, CfgSection& s, const nn::Symbol& input) {
    const std::string& type = s.name();
    if (type == "convolutional" || type == "conv") return convolutional(i, s, previous(i, input, s));
    if (type == "route") return route(i, s);
    if (type == "shortcut") return shortcut(i, s, previous(i, input, s));
    if (type == "upsample") return upsample(i, s, previous(i, input, s));
    if (type == "maxpool" || type == "max") return maxpool(i, s, previous(i, input, s));
    if (type == "yolo") {
      yolo(i, s, previous(i, input, s));
      return std::nullopt;
    }
    throw Error(s.where() + ": unknown section [" + type.substr(0, 40) +
                "] (read: net, convolutional, route, shortcut, upsample, maxpool, yolo)");
  }

  nn::Symbol convolutional(int64_t i, CfgSection& s, const nn::Symbol& x) {
    int64_t filters = s.integer("filters", 1, 1, kMaxFilters);
    const int64_t size = s.integer("size", 1, 1, kMaxKernel);
    const int64_t stride = s.integer("stride", 1, 1, kMaxStride);
    const bool pad = s.integer("pad", 0, 0, 1) == 1;
    int64_t padding = s.integer("padding", 0, 0, kMaxKernel);
    const int64_t groups = s.integer("groups", 1, 1, kMaxFilters);
    const bool batch_normalize = s.integer("batch_normalize", 0, 0, 1) == 1;
    const std::string act = s.text("activation", "logistic", kActivations);
    s.finish();
    if (pad) padding = size / 2;  // darknet's rule: pad=1 overrides padding
    // The convolution feeding a [yolo] layer: (classes + 5) per anchor, rewritten for other classes.
    if (auto head = heads_.find(static_cast<size_t>(i) + 2); head != heads_.end() && options_.classes > 0)
      filters = static_cast<int64_t>(head->second.anchors.size()) * (options_.classes + 5);
    const Shape& in = x.shape();
    const int64_t c = in[3];
    STRATA_CHECK(c % groups == 0 && filters % groups == 0, s.where("groups"), ": groups=", groups,
                 " must divide the input channels (", c, ") and the filters (", filters, ")");
    STRATA_CHECK(in[1] + 2 * padding >= size && in[2] + 2 * padding >= size, s.where("size"), ": a ", size, "x",
                 size, " kernel does not fit the ", in[1], "x", in[2], " input padded by ", padding);
    count_parameters(size * size * (c / groups) * filters + (batch_normalize ? 4 : 1) * filters, s);
    const std::string n = std::to_string(i);
    net_.conv_layers.push_back("conv_" + n);
    net_.conv_batch_normalize.push_back(batch_normalize);
    nn::Symbol y = nn::Conv2d({.n_filter = filters,
                               .filter_size = {size, size},
                               .act = batch_normalize ? nn::Activation() : activation(act),
                               .options = {.stride = {stride, stride},
                                           .padding = Padding::explicit_({padding, padding}, {padding, padding}),
                                           .groups = groups},
                               .use_bias = !batch_normalize},
                              "conv_" + n)(x);
    // darknet's batch norm: epsilon 1e-5 (normalize_cpu), rolling statistics kept at 0.99.
    if (batch_normalize) y = nn::BatchNorm2d({.decay = 0.99, .epsilon = 1e-5, .act = activation(act)}, "bn_" + n)(y);
    return y;
  }

  nn::Symbol route(int64_t i, CfgSection& s) {
    bool present = false;
    const std::vector<int64_t> refs = s.integers("layers", -kMaxIndex, kMaxIndex, kMaxRouteInputs, &present);
    STRATA_CHECK(present, s.where(), ": [route] needs layers=");
    const int64_t groups = s.integer("groups", 1, 1, kMaxFilters);
    const int64_t group_id = s.integer("group_id", 0, 0, groups - 1);
    s.finish();
    const std::string n = std::to_string(i);
    std::vector<nn::Symbol> parts;
    for (size_t k = 0; k < refs.size(); ++k) {
      nn::Symbol part = output_of(i, refs[k], s, "layers");
      if (groups > 1) {
        const int64_t c = part.shape()[3];
        STRATA_CHECK(c % groups == 0, s.where("groups"), ": groups=", groups, " must divide the ", c,
                     " channels of layer ", refs[k]);
        const int64_t width = c / groups;
        part = nn::Slice({.axis = 3, .begin = group_id * width, .end = (group_id + 1) * width},
                         "route_" + n + "_group" + std::to_string(k))(part);
      }
      if (!parts.empty())
        STRATA_CHECK(part.shape()[1] == parts[0].shape()[1] && part.shape()[2] == parts[0].shape()[2],
                     s.where("layers"), ": the layers joined have different sizes, ", parts[0].shape().str(), " and ",
                     part.shape().str());
      parts.push_back(part);
    }
    if (parts.size() == 1) return parts[0];
    int64_t channels = 0;
    for (const nn::Symbol& part : parts) channels += part.shape()[3];
    STRATA_CHECK(channels <= kMaxRouteChannels, s.where("layers"), ": ", channels, " channels joined, more than ",
                 kMaxRouteChannels);
    return nn::Concat(-1, "route_" + n)(parts);
  }

  nn::Symbol shortcut(int64_t i, CfgSection& s, const nn::Symbol& x) {
    bool present = false;
    const std::vector<int64_t> refs = s.integers("from", -kMaxIndex, kMaxIndex, kMaxRouteInputs, &present);
    STRATA_CHECK(present, s.where(), ": [shortcut] needs from=");
    const std::string act = s.text("activation", "linear", kActivations);
    s.finish();
    std::vector<nn::Symbol> terms = {x};
    for (int64_t ref : refs) {
      terms.push_back(output_of(i, ref, s, "from"));
      STRATA_CHECK(terms.back().shape() == x.shape(), s.where("from"), ": layer ", ref, " gives ",
                   terms.back().shape().str(), ", the previous layer ", x.shape().str());
    }
    return nn::Elementwise({.combine = "add", .act = activation(act)}, "shortcut_" + std::to_string(i))(terms);
  }

  nn::Symbol upsample(int64_t i, CfgSection& s, const nn::Symbol& x) {
    const int64_t stride = s.integer("stride", 2, 1, kMaxStride);
    s.finish();
    STRATA_CHECK(x.shape()[1] * stride <= kMaxImageSize && x.shape()[2] * stride <= kMaxImageSize, s.where("stride"),
                 ": upsampling ", x.shape().str(), " by ", stride, " passes ", kMaxImageSize, " pixels");
    return nn::UpSampling2d({.scale = {stride, stride}, .method = nn::ResizeMethod::nearest},
                            "upsample_" + std::to_string(i))(x);
  }

  nn::Symbol maxpool(int64_t i, CfgSection& s, const nn::Symbol& x) {
    const int64_t stride = s.integer("stride", 1, 1, kMaxStride);
    const int64_t size = s.integer("size", stride, 1, kMaxKernel);
    // darknet's maxpool_layer: out = (in + padding - size) / stride + 1, windows starting at
    // -padding / 2; the padded cells never win.
    const int64_t padding = s.integer("padding", size - 1, 0, 2 * kMaxKernel);
    s.finish();
    const int64_t before = padding / 2, after = padding - before;
    STRATA_CHECK(after < size, s.where("padding"), ": padding ", padding, " must be below twice the size (", size,
                 ")");
    STRATA_CHECK(x.shape()[1] + padding >= size && x.shape()[2] + padding >= size, s.where("size"), ": a ", size,
                 "x", size, " window does not fit the ", x.shape()[1], "x", x.shape()[2], " input");
    return nn::MaxPool2d({.filter_size = {size, size},
                          .options = {.stride = {stride, stride},
                                      .padding = Padding::explicit_({before, before}, {after, after})}},
                         "maxpool_" + std::to_string(i))(x);
  }

  void yolo(int64_t i, CfgSection& s, const nn::Symbol& x) {
    YoloHead head = heads_.at(static_cast<size_t>(i) + 1);
    const int64_t per_anchor = head.classes + 5;
    const int64_t wanted = static_cast<int64_t>(head.anchors.size()) * per_anchor;
    STRATA_CHECK(i > 0 && (sections_[i].name() == "convolutional" || sections_[i].name() == "conv"), s.where(),
                 ": a [yolo] layer must follow a [convolutional] one");
    const Shape& shape = x.shape();
    STRATA_CHECK(shape[3] == wanted, s.where(), ": the [convolutional] before it has ", shape[3], " filters; ",
                 head.anchors.size(), " anchors of ", head.classes, " classes need ", wanted);
    STRATA_CHECK(net_.width % shape[2] == 0 && net_.height % shape[1] == 0 &&
                     net_.width / shape[2] == net_.height / shape[1],
                 s.where(), ": its ", shape[1], "x", shape[2], " grid is not the ", net_.height, "x", net_.width,
                 " input divided by one stride");
    head.stride = net_.width / shape[2];
    net_.heads.push_back(std::move(head));
    yolo_outputs_.push_back(x);
  }

  std::vector<CfgSection> sections_;
  DarknetOptions options_;
  DarknetNetwork net_;
  std::map<size_t, YoloHead> heads_;  // by section index
  std::vector<std::optional<nn::Symbol>> outs_;  // by layer index; none for [yolo]
  std::vector<nn::Symbol> yolo_outputs_;
  int64_t parameters_ = 0;
};

}  // namespace

DarknetNetwork parse_darknet_cfg(std::string_view text, const DarknetOptions& options) {
  return CfgBuilder(detail::split_sections(text), options).build();
}

DarknetNetwork read_darknet_cfg(const std::string& path, const DarknetOptions& options) {
  const std::vector<unsigned char> bytes = data::detail::read_file_bytes(path, "darknet cfg");
  try {
    return parse_darknet_cfg(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace strata::vision
