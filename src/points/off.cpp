// OFF (Princeton's Object File Format, as ModelNet ships it): "OFF", then "<vertices> <faces>
// <edges>", then one "x y z" line a vertex and one "n i_1 ... i_n [colour]" line a face.
#include "cloud_parsing.hpp"
#include "strata/core/error.hpp"

namespace strata::points {
namespace {

// The next line that is not blank or a '#' comment.
std::string_view content_line(detail::LineCursor& lines, std::vector<std::string_view>& tokens,
                              const std::string& where, std::string_view expected) {
  while (!lines.at_end()) {
    std::string_view line = lines.next();
    detail::split_tokens(line, detail::kWhitespace, tokens);
    if (!tokens.empty() && tokens[0].front() != '#') return line;
  }
  throw Error(where + ": the file ends where " + std::string(expected) + " should be");
}

}  // namespace

PointCloudFile parse_off(std::string_view bytes, std::string_view name) {
  const std::string where = detail::source_label("OFF", name);
  detail::LineCursor lines(bytes);
  std::vector<std::string_view> tokens;
  content_line(lines, tokens, where, "the 'OFF' line");
  STRATA_CHECK(tokens[0].substr(0, 3) == "OFF", where, ": expected the first line to start with 'OFF', got '",
               std::string(tokens[0].substr(0, 16)), "'");
  // ModelNet's quirk: some of its files glue the counts to the keyword ("OFF1234 5678 0").
  if (tokens[0].size() > 3) tokens[0].remove_prefix(3);
  else if (tokens.size() == 1) content_line(lines, tokens, where, "the counts line");
  else tokens.erase(tokens.begin());
  STRATA_CHECK(tokens.size() >= 2, where, ": expected '<vertices> <faces> <edges>' after 'OFF'");
  const std::string at_counts = where + ": line " + std::to_string(lines.line_number());
  const uint64_t vertices = detail::count_or_throw(tokens[0], at_counts, "the vertex count");
  const uint64_t faces = detail::count_or_throw(tokens[1], at_counts, "the face count");
  // A vertex line is at least "0 0 0\n", a face line "3 0 0 0\n".
  detail::check_claim(vertices, 6, lines.bytes_left(), where, "the vertex count");
  detail::check_claim(faces, 8, lines.bytes_left() - vertices * 6, where, "the face count");

  detail::CloudBuilder cloud(where, {});
  cloud.reserve(vertices);
  for (uint64_t v = 0; v < vertices; ++v) {
    content_line(lines, tokens, where, "vertex " + std::to_string(v));
    const std::string at = where + ": line " + std::to_string(lines.line_number());
    STRATA_CHECK(tokens.size() >= 3, at, ": vertex ", v, " has ", tokens.size(), " values; expected x y z");
    const float xyz[3] = {static_cast<float>(detail::number_or_throw(tokens[0], at, "x")),
                          static_cast<float>(detail::number_or_throw(tokens[1], at, "y")),
                          static_cast<float>(detail::number_or_throw(tokens[2], at, "z"))};
    cloud.add_point(xyz, nullptr);
  }
  std::vector<int64_t> polygon;
  for (uint64_t f = 0; f < faces; ++f) {
    content_line(lines, tokens, where, "face " + std::to_string(f));
    const std::string at = where + ": line " + std::to_string(lines.line_number());
    const uint64_t n = detail::count_or_throw(tokens[0], at, "the face's vertex count");
    // Values past the indices are the face's colour, which is not kept.
    STRATA_CHECK(n < tokens.size(), at, ": face ", f, " claims ", n, " vertices but lists ", tokens.size() - 1);
    polygon.clear();
    for (uint64_t k = 1; k <= n; ++k)
      polygon.push_back(static_cast<int64_t>(detail::count_or_throw(tokens[k], at, "a vertex index")));
    cloud.add_polygon(polygon);
  }
  return std::move(cloud).finish();
}

std::string format_off(const PointCloudFile& cloud) {
  const std::vector<float> xyz = detail::float_values(cloud.points, 3, "points");
  const int64_t points = static_cast<int64_t>(xyz.size() / 3);
  const std::vector<int64_t> faces = detail::face_values(cloud.faces, points);
  std::string out = "OFF\n" + std::to_string(points) + " " + std::to_string(faces.size() / 3) + " 0\n";
  for (size_t i = 0; i < xyz.size(); i += 3) {
    for (int c = 0; c < 3; ++c) {
      detail::append_number(out, xyz[i + c]);
      out += c < 2 ? ' ' : '\n';
    }
  }
  for (size_t f = 0; f < faces.size(); f += 3)
    out += "3 " + std::to_string(faces[f]) + " " + std::to_string(faces[f + 1]) + " " + std::to_string(faces[f + 2]) + "\n";
  return out;
}

void write_off(const std::string& path, const PointCloudFile& cloud) {
  detail::write_bytes_atomically(path, format_off(cloud));
}

}  // namespace strata::points
