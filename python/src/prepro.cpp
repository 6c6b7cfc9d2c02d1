// strata._strata.prepro: TensorLayer's remaining prepro tools (strata/vision/prepro.hpp), which
// strata.tl.prepro wraps under TensorLayer's names.
#include "strata/vision/prepro.hpp"
#include "bindings.hpp"

namespace strata::python {

namespace {

vision::ContourSide contour_side(const std::string& s) {
  STRATA_CHECK(s == "low" || s == "high", "find_contours: expected \"low\" or \"high\", got \"", s, "\"");
  return s == "high" ? vision::ContourSide::high : vision::ContourSide::low;
}

py::tuple keypoint_tuple(const vision::KeypointImage& k) {
  return py::make_tuple(k.image, k.mask.defined() ? py::cast(k.mask) : py::none(), k.people);
}

}  // namespace

void bind_prepro(py::module_& m) {
  py::module_ p = m.def_submodule("prepro", "TensorLayer's prepro tools (strata/vision/prepro.hpp)");
  p.def("obj_box_coord_rescale", &vision::obj_box_coord_rescale, py::arg("coord"), py::arg("height"), py::arg("width"));
  p.def("obj_box_coords_rescale", &vision::obj_box_coords_rescale, py::arg("coords"), py::arg("height"),
        py::arg("width"));
  p.def("obj_box_coord_scale_to_pixelunit", &vision::obj_box_coord_scale_to_pixelunit, py::arg("coord"),
        py::arg("height"), py::arg("width"));
  p.def("obj_box_coord_centroid_to_upleft_butright", &vision::obj_box_coord_centroid_to_upleft_butright,
        py::arg("coord"), py::arg("to_int") = false);
  p.def("obj_box_coord_upleft_butright_to_centroid", &vision::obj_box_coord_upleft_butright_to_centroid,
        py::arg("coord"));
  p.def("obj_box_coord_centroid_to_upleft", &vision::obj_box_coord_centroid_to_upleft, py::arg("coord"));
  p.def("obj_box_coord_upleft_to_centroid", &vision::obj_box_coord_upleft_to_centroid, py::arg("coord"));
  p.def(
      "parse_darknet_annotations",
      [](const std::string& text) {
        const auto a = vision::parse_darknet_annotations(text);
        return py::make_tuple(a.classes, a.boxes);
      },
      py::arg("text"), "(classes, [x, y, w, h] boxes) of darknet's 'class x y w h' lines");
  p.def(
      "adjust_gamma",
      [](py::handle x, double gamma, double gain) { return vision::adjust_gamma(as_tensor(x), gamma, gain); },
      py::arg("image"), py::arg("gamma"), py::arg("gain") = 1.0);
  p.def(
      "illumination",
      [](py::handle x, double g, double c, double s) { return vision::illumination(as_tensor(x), g, c, s); },
      py::arg("image"), py::arg("gamma"), py::arg("contrast"), py::arg("saturation"));
  p.def(
      "random_illumination",
      [](py::handle x, std::array<double, 2> g, std::array<double, 2> c, std::array<double, 2> s) {
        return vision::random_illumination(as_tensor(x), {g, c, s});
      },
      py::arg("image"), py::arg("gamma"), py::arg("contrast"), py::arg("saturation"));
  p.def(
      "drop", [](py::handle x, double keep) { return vision::drop(as_tensor(x), keep); }, py::arg("image"),
      py::arg("keep"));
  p.def(
      "binary_dilation", [](py::handle x, int64_t r) { return vision::binary_dilation(as_tensor(x), r); },
      py::arg("image"), py::arg("radius") = 3);
  p.def(
      "binary_erosion", [](py::handle x, int64_t r) { return vision::binary_erosion(as_tensor(x), r); },
      py::arg("image"), py::arg("radius") = 3);
  p.def(
      "dilation", [](py::handle x, int64_t r) { return vision::dilation(as_tensor(x), r); }, py::arg("image"),
      py::arg("radius") = 3);
  p.def(
      "erosion", [](py::handle x, int64_t r) { return vision::erosion(as_tensor(x), r); }, py::arg("image"),
      py::arg("radius") = 3);
  p.def(
      "find_contours",
      [](py::handle x, double level, const std::string& connected, const std::string& orientation) {
        return vision::find_contours(as_tensor(x), level, contour_side(connected), contour_side(orientation));
      },
      py::arg("image"), py::arg("level"), py::arg("fully_connected") = "low", py::arg("positive_orientation") = "low");
  p.def("pt2map", &vision::pt2map, py::arg("lists"), py::arg("rows"), py::arg("cols"), py::arg("value") = 1.0);
  p.def(
      "swirl",
      [](py::handle x, std::optional<std::array<double, 2>> center, double strength, double radius, double rotation,
         double fill) {
        return vision::swirl(as_tensor(x), {center, strength, radius, rotation}, fill);
      },
      py::arg("image"), py::arg("center") = py::none(), py::arg("strength") = 1.0, py::arg("radius") = 100.0,
      py::arg("rotation") = 0.0, py::arg("fill") = 0.0, "center (x, y); rotation in degrees");
  p.def(
      "projective_transform_by_points",
      [](py::handle x, const std::vector<vision::ProjectivePoint>& src, const std::vector<vision::ProjectivePoint>& dst,
         double fill) { return vision::projective_transform_by_points(as_tensor(x), src, dst, fill); },
      py::arg("image"), py::arg("src"), py::arg("dst"), py::arg("fill") = 0.0);
  p.def(
      "keypoint_flip",
      [](py::handle x, py::handle mask, const std::vector<std::vector<vision::KeypointXY>>& people,
         const std::vector<int64_t>& flip_list) {
        return keypoint_tuple(
            vision::keypoint_flip({as_tensor(x), mask.is_none() ? Tensor() : as_tensor(mask), people}, flip_list));
      },
      py::arg("image"), py::arg("mask"), py::arg("people"), py::arg("flip_list") = vision::kCocoFlipList);
  p.def(
      "keypoint_resize_shortestedge",
      [](py::handle x, py::handle mask, const std::vector<std::vector<vision::KeypointXY>>& people, int64_t min_h,
         int64_t min_w, double zoom, const std::vector<double>& pad) {
        return keypoint_tuple(vision::keypoint_resize_shortestedge(
            {as_tensor(x), mask.is_none() ? Tensor() : as_tensor(mask), people}, min_h, min_w, zoom, pad));
      },
      py::arg("image"), py::arg("mask"), py::arg("people"), py::arg("min_height"), py::arg("min_width"),
      py::arg("zoom") = 1.0, py::arg("pad_value") = std::vector<double>{});
  p.def("process_sequences", &vision::process_sequences, py::arg("sequences"), py::arg("end_id") = 0,
        py::arg("pad_val") = 0, py::arg("is_shorten") = true, py::arg("remain_end_id") = false);
  p.def(
      "resize_area", [](py::handle x, int64_t h, int64_t w) { return vision::resize_area(as_tensor(x), h, w); },
      py::arg("image"), py::arg("height"), py::arg("width"), "OpenCV's INTER_AREA");
}

}  // namespace strata::python
