// Point-cloud and mesh files: PLY, OFF, PCD, XYZ and CSV, read into one in-memory form
// (PointCloudFile) and written from it. Every reader takes the bytes themselves (no file needed,
// so tests and fuzzers call them directly) and a name for its errors; read_point_cloud picks the
// reader by the path's extension. Every byte is hostile: counts are checked for overflow and
// against the bytes present before anything is allocated, face indices against the vertex
// count, and headers, property counts and polygon sizes are bounded by the limits below.
// Errors are strata::Error "<FORMAT> <name>: <what was expected>, <what came>".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::points {

// What one file holds. Every per-point value that is not a coordinate is a named float32 column
// (normals "nx"/"normal_x", colours "red" "green" "blue" ["alpha"] as 0..255, labels,
// intensity, ...), so a reader keeps everything and a writer writes it back by name.
struct PointCloudFile {
  Tensor points;                            // float32 [P, 3]: x, y, z
  std::vector<std::string> property_names;  // the other per-point values, in file order
  Tensor properties;                        // float32 [P, K]; column k is property_names[k]
  Tensor faces;                             // int64 [F, 3] triangles, polygons fan-triangulated; [0, 3] for none

  bool has_property(std::string_view name) const;
  // Column `name` as float32 [P]. Throws strata::Error listing the names present when absent.
  Tensor property(std::string_view name) const;
};

// Limits on what a reader accepts (documented in docs/pointclouds.md, "Files").
inline constexpr size_t kMaxHeaderBytes = size_t{1} << 20;  // PLY and PCD headers
inline constexpr size_t kMaxProperties = 256;               // per PLY element, PCD fields with COUNTs expanded, text columns
inline constexpr int64_t kMaxPolygonVertices = 4096;        // one PLY or OFF face

// Readers of bytes; `name` (a path, or empty) goes into error messages.
// PLY: ascii, binary_little_endian, binary_big_endian. x, y, z of the "vertex" element are the
// points and its other scalar properties the columns; the "face" element's "vertex_indices" (or
// "vertex_index") list the faces; every other element and property is skipped.
PointCloudFile parse_ply(std::string_view bytes, std::string_view name = {});
// OFF (Princeton's, as ModelNet ships it, including "OFF<nv> <nf> <ne>" on one line).
PointCloudFile parse_off(std::string_view bytes, std::string_view name = {});
// PCD (PCL's, VERSION .7): DATA ascii, binary or binary_compressed (LZF). A COUNT > 1 field
// becomes columns name_0, name_1, ...; a packed "rgb" ("rgba") field becomes red green blue
// (alpha); "_" padding fields are skipped.
PointCloudFile parse_pcd(std::string_view bytes, std::string_view name = {});
// Whitespace- or comma-separated numbers, one point a line: x y z, then columns named
// column_3, column_4, ... Lines starting with '#' and blank lines are skipped.
PointCloudFile parse_xyz(std::string_view bytes, std::string_view name = {});
// Comma-separated; when the first row is not all numbers it names the columns, and columns
// x, y, z (any case) are the points; otherwise the first three columns are.
PointCloudFile parse_csv(std::string_view bytes, std::string_view name = {});

// Reads a file by its extension (any case): .ply .off .pcd .xyz .txt (as XYZ) .csv.
PointCloudFile read_point_cloud(const std::string& path);

enum class PlyFormat { ascii, binary_little_endian, binary_big_endian };
enum class PcdData { ascii, binary, binary_compressed };

// The bytes of a file. Columns "red" "green" "blue" "alpha" are written as uchar in PLY and
// packed into PCD's "rgb" ("rgba"); every other column as float32. OFF keeps only points and
// faces; XYZ writes every column, space-separated.
std::string format_ply(const PointCloudFile& cloud, PlyFormat format = PlyFormat::binary_little_endian);
std::string format_off(const PointCloudFile& cloud);
std::string format_pcd(const PointCloudFile& cloud, PcdData data = PcdData::binary);
std::string format_xyz(const PointCloudFile& cloud);

// Writers: the file is replaced whole or not at all (io::AtomicFile).
void write_ply(const std::string& path, const PointCloudFile& cloud,
               PlyFormat format = PlyFormat::binary_little_endian);
void write_off(const std::string& path, const PointCloudFile& cloud);
void write_pcd(const std::string& path, const PointCloudFile& cloud, PcdData data = PcdData::binary);
void write_xyz(const std::string& path, const PointCloudFile& cloud);

}  // namespace strata::points
