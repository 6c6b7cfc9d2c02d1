// Slice and UpSampling2d as ONNX nodes (Slice, Resize), in whichever layout the value already
// has, so darknet's route groups and upsampling between convolutions add no transposes.
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"

#include "onnx_export.hpp"

namespace strata::onnx::detail {

using nlohmann::json;

Value slice_layer(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  int64_t axis = c.at("axis").get<int64_t>();
  if (axis < 0) axis += x.rank;
  STRATA_CHECK(axis >= 1 && axis < x.rank, "layer '", name, "': axis ", c.at("axis").get<int64_t>(),
               " is out of range for rank ", x.rank);
  // Channels-first moves the last axis to 1 and the spatial ones up by one.
  const bool first = !x.first.empty() && x.rank > 2;
  const int64_t onnx_axis = !first ? axis : (axis == x.rank - 1 ? 1 : axis + 1);
  const std::string in = first ? x.first : ex.channels_last(x), y = ex.fresh(name + "_slice");
  ex.node("Slice",
          {in, ex.ints_constant(name + "_starts", {c.at("begin").get<int64_t>()}),
           ex.ints_constant(name + "_ends", {c.at("end").get<int64_t>()}), ex.ints_constant(name + "_axes", {onnx_axis})},
          y);
  return first ? Value{"", y, x.rank} : Value{y, "", x.rank};
}

// Strata samples at half-pixel centres: nearest takes floor((j + 0.5) / scale), which is ONNX's
// half_pixel mode rounding ties up; bilinear clamps below at 0 as ONNX's linear half_pixel does.
Value upsampling2d(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  std::vector<int64_t> scale = nn::dims_of(c.at("scale"));
  if (scale.size() == 1) scale.push_back(scale[0]);
  STRATA_CHECK(scale.size() == 2, "layer '", name, "': scale must hold one or two values");
  const bool first = !x.first.empty();
  const float sh = static_cast<float>(scale[0]), sw = static_cast<float>(scale[1]);
  const std::vector<float> scales = first ? std::vector<float>{1, 1, sh, sw} : std::vector<float>{1, sh, sw, 1};
  const std::string in = first ? x.first : ex.channels_last(x), y = ex.fresh(name + "_resize");
  pb::NodeProto& n = ex.node("Resize", {in, "", ex.initializer(name + "_scales", from_vector(scales))}, y);
  set_string(n, "coordinate_transformation_mode", "half_pixel");
  if (c.at("method").get<std::string>() == "nearest") {
    set_string(n, "mode", "nearest");
    set_string(n, "nearest_mode", "round_prefer_ceil");
  } else {
    set_string(n, "mode", "linear");
  }
  return first ? Value{"", y, x.rank} : Value{y, "", x.rank};
}

}  // namespace strata::onnx::detail
