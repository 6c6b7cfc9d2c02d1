// TensorLayer's obj_box_coord_* conversions and its darknet annotation parser.
#include <charconv>
#include <cmath>
#include <string>

#include "strata/core/error.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

namespace {

void check_image_size(int64_t height, int64_t width, const char* op) {
  STRATA_CHECK(height > 0 && width > 0, op, ": expected a positive image height and width, got ", height, " x ", width);
}

// Python's int() of a float: toward zero.
BoxCoord truncated(const BoxCoord& c) {
  return {std::trunc(c[0]), std::trunc(c[1]), std::trunc(c[2]), std::trunc(c[3])};
}

// The spellings Python's int() takes for a class: an optional sign and decimal digits.
bool parse_class(std::string_view s, int64_t& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty() && s.front() != '+';
}

// Python's float(): from_chars's general format plus a leading '+' (from_chars takes '-' only).
bool parse_number(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

BoxCoord obj_box_coord_rescale(const BoxCoord& coord, int64_t height, int64_t width) {
  check_image_size(height, width, "obj_box_coord_rescale");
  const double h = double(height), w = double(width);
  return {coord[0] / w, coord[1] / h, coord[2] / w, coord[3] / h};
}

std::vector<BoxCoord> obj_box_coords_rescale(const std::vector<BoxCoord>& coords, int64_t height, int64_t width) {
  check_image_size(height, width, "obj_box_coords_rescale");
  std::vector<BoxCoord> out;
  out.reserve(coords.size());
  for (const BoxCoord& c : coords) out.push_back(obj_box_coord_rescale(c, height, width));
  return out;
}

BoxCoord obj_box_coord_scale_to_pixelunit(const BoxCoord& coord, int64_t height, int64_t width) {
  check_image_size(height, width, "obj_box_coord_scale_to_pixelunit");
  const double h = double(height), w = double(width);
  return truncated({coord[0] * w, coord[1] * h, coord[2] * w, coord[3] * h});
}

BoxCoord obj_box_coord_centroid_to_upleft_butright(const BoxCoord& coord, bool to_int) {
  const auto [xc, yc, w, h] = coord;
  const double x = xc - w / 2., y = yc - h / 2.;
  const BoxCoord out{x, y, x + w, y + h};
  return to_int ? truncated(out) : out;
}

BoxCoord obj_box_coord_upleft_butright_to_centroid(const BoxCoord& coord) {
  const auto [x1, y1, x2, y2] = coord;
  const double w = x2 - x1, h = y2 - y1;
  return {x1 + w / 2., y1 + h / 2., w, h};
}

BoxCoord obj_box_coord_centroid_to_upleft(const BoxCoord& coord) {
  const auto [xc, yc, w, h] = coord;
  return {xc - w / 2., yc - h / 2., w, h};
}

BoxCoord obj_box_coord_upleft_to_centroid(const BoxCoord& coord) {
  const auto [x, y, w, h] = coord;
  return {x + w / 2., y + h / 2., w, h};
}

DarknetAnnotations parse_darknet_annotations(std::string_view text) {
  DarknetAnnotations out;
  size_t line_number = 0;
  while (!text.empty() || line_number == 0) {
    ++line_number;
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    std::vector<std::string_view> fields;
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && is_space(line[i])) ++i;
      size_t j = i;
      while (j < line.size() && !is_space(line[j])) ++j;
      if (j > i) fields.push_back(line.substr(i, j - i));
      if (fields.size() > 5) break;  // skipped like any other line without five fields
      i = j;
    }
    if (fields.size() != 5) continue;
    int64_t label = 0;
    BoxCoord box{};
    STRATA_CHECK(parse_class(fields[0], label), "parse_darknet_annotations: line ", line_number,
                 ": expected an integer class, got '", std::string(fields[0]), "'");
    for (int k = 0; k < 4; ++k)
      STRATA_CHECK(parse_number(fields[k + 1], box[k]), "parse_darknet_annotations: line ", line_number,
                   ": expected a number for field ", k + 2, ", got '", std::string(fields[k + 1]), "'");
    out.classes.push_back(label);
    out.boxes.push_back(box);
  }
  return out;
}

}  // namespace strata::vision
