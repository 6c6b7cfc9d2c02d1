#include "strata/vision/detector_description.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "strata/core/error.hpp"

namespace strata::vision {
namespace {

using nlohmann::json;

constexpr size_t kMaxDetectorJson = 64 * 1024;

const json& field(const json& object, const char* key, const char* where) {
  STRATA_CHECK(object.is_object() && object.contains(key), "detector description: ", where, " has no \"", key, "\"");
  return object.at(key);
}

int64_t bounded_int(const json& object, const char* key, const char* where, int64_t lo, int64_t hi) {
  const json& v = field(object, key, where);
  STRATA_CHECK(v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi, "detector description: ", where,
               "'s \"", key, "\" is ", v.dump(), "; expected an integer in [", lo, ", ", hi, "]");
  return v.get<int64_t>();
}

double finite_number(const json& object, const char* key, const char* where) {
  const json& v = field(object, key, where);
  STRATA_CHECK(v.is_number() && std::isfinite(v.get<double>()), "detector description: ", where, "'s \"", key, "\" is ",
               v.dump(), "; expected a finite number");
  return v.get<double>();
}

}  // namespace

std::string detector_json(const DetectorDescription& d) {
  json heads = json::array();
  for (const YoloHead& h : d.heads) {
    json anchors = json::array();
    for (const auto& [w, hh] : h.anchors) anchors.push_back({w, hh});
    heads.push_back({{"anchors", anchors}, {"classes", h.classes}, {"stride", h.stride}, {"scale_x_y", h.scale_x_y},
                     {"ignore_thresh", h.ignore_thresh}, {"iou_normalizer", h.iou_normalizer},
                     {"cls_normalizer", h.cls_normalizer}, {"iou_thresh", h.iou_thresh}, {"beta_nms", h.beta_nms},
                     {"nms_kind", h.nms_kind}});
  }
  return json{{"width", d.width}, {"height", d.height}, {"classes", d.class_names}, {"heads", heads}}.dump();
}

DetectorDescription parse_detector_json(const std::string& text) {
  STRATA_CHECK(text.size() <= kMaxDetectorJson, "detector description: ", text.size(), " bytes; at most ",
               kMaxDetectorJson, " are read");
  const json j = json::parse(text, nullptr, false);
  STRATA_CHECK(!j.is_discarded() && j.is_object(), "detector description: not a JSON object");
  DetectorDescription d;
  d.width = bounded_int(j, "width", "the description", 1, 65536);
  d.height = bounded_int(j, "height", "the description", 1, 65536);
  const json& names = field(j, "classes", "the description");
  STRATA_CHECK(names.is_array() && !names.empty() && names.size() <= 10000, "detector description: \"classes\" must be a list of 1 to 10000 names");
  for (const json& n : names) {
    STRATA_CHECK(n.is_string() && n.get<std::string>().size() <= 256, "detector description: a class name is not a string of at most 256 bytes");
    d.class_names.push_back(n.get<std::string>());
  }
  const json& heads = field(j, "heads", "the description");
  STRATA_CHECK(heads.is_array() && !heads.empty() && heads.size() <= 16, "detector description: \"heads\" must be a list of 1 to 16 heads");
  for (const json& h : heads) {
    YoloHead head;
    head.classes = bounded_int(h, "classes", "a head", 1, 10000);
    STRATA_CHECK(head.classes == static_cast<int64_t>(d.class_names.size()), "detector description: a head has ", head.classes,
                 " classes but ", d.class_names.size(), " names are given");
    head.stride = bounded_int(h, "stride", "a head", 1, 65536);
    head.scale_x_y = finite_number(h, "scale_x_y", "a head");
    head.ignore_thresh = finite_number(h, "ignore_thresh", "a head");
    head.iou_normalizer = finite_number(h, "iou_normalizer", "a head");
    head.cls_normalizer = finite_number(h, "cls_normalizer", "a head");
    head.iou_thresh = finite_number(h, "iou_thresh", "a head");
    head.beta_nms = finite_number(h, "beta_nms", "a head");
    const json& kind = field(h, "nms_kind", "a head");
    STRATA_CHECK(kind.is_string() && kind.get<std::string>().size() <= 32, "detector description: a head's \"nms_kind\" is not a short string");
    head.nms_kind = kind.get<std::string>();
    const json& anchors = field(h, "anchors", "a head");
    STRATA_CHECK(anchors.is_array() && !anchors.empty() && anchors.size() <= 64, "detector description: a head's \"anchors\" must be a list of 1 to 64 pairs");
    for (const json& a : anchors) {
      STRATA_CHECK(a.is_array() && a.size() == 2 && a[0].is_number() && a[1].is_number() && a[0].get<double>() > 0 &&
                       a[1].get<double>() > 0 && std::isfinite(a[0].get<double>()) && std::isfinite(a[1].get<double>()),
                   "detector description: an anchor is ", a.dump(), "; expected [w, h], both positive");
      head.anchors.emplace_back(a[0].get<double>(), a[1].get<double>());
    }
    d.heads.push_back(std::move(head));
  }
  return d;
}

}  // namespace strata::vision
