// Point-cloud files: the fixtures written by trimesh and Open3D (make_pointcloud_fixtures.py)
// read back to the values they were made from, every writer round-trips through its reader,
// and hostile bytes (truncated, huge counts, bad indices, corrupt LZF) are refused with
// strata::Error.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "strata/core/factory.hpp"
#include "strata/points/files.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace files_test {

using namespace strata;
using namespace strata::points;
using strata::testing::expect_error;

std::string fixture_path(const std::string& name) { return std::string(STRATA_TESTS_DIR) + "/points/fixtures/" + name; }

std::string fixture_bytes(const std::string& name) {
  std::ifstream in(fixture_path(name), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const nlohmann::json& expected() {
  static const nlohmann::json json = nlohmann::json::parse(fixture_bytes("expected.json"));
  return json;
}

// Every value of t (any float dtype, [N, C]) against rows of numbers.
void expect_rows(const Tensor& t, const nlohmann::json& rows, double tolerance, const std::string& what) {
  ASSERT_EQ(t.dim(), 2) << what;
  ASSERT_EQ(t.size(0), static_cast<int64_t>(rows.size())) << what;
  const std::vector<double> values = t.to_vector<double>();
  const int64_t columns = t.size(1);
  for (size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(static_cast<int64_t>(rows[r].size()), columns) << what;
    for (int64_t c = 0; c < columns; ++c)
      ASSERT_NEAR(values[r * columns + c], rows[r][c].get<double>(), tolerance) << what << " row " << r << " column " << c;
  }
}

Tensor columns(const PointCloudFile& cloud, const std::vector<std::string>& names) {
  std::vector<float> values;
  const int64_t points = cloud.points.size(0);
  std::vector<std::vector<float>> cols;
  for (const std::string& n : names) cols.push_back(cloud.property(n).to_vector<float>());
  for (int64_t p = 0; p < points; ++p)
    for (const auto& c : cols) values.push_back(c[p]);
  return from_vector(values, Shape{points, static_cast<int64_t>(names.size())});
}

void expect_cube(const PointCloudFile& cloud, bool with_attributes, const std::string& what) {
  expect_rows(cloud.points, expected()["cube_vertices"], 1e-6, what + " points");
  std::vector<int64_t> faces;
  for (const auto& face : expected()["cube_faces"])
    for (const auto& index : face) faces.push_back(index.get<int64_t>());
  EXPECT_EQ(cloud.faces.to_vector<int64_t>(), faces) << what;
  if (!with_attributes) return;
  expect_rows(columns(cloud, {"nx", "ny", "nz"}), expected()["cube_vertex_normals"], 1e-6, what + " normals");
  expect_rows(columns(cloud, {"red", "green", "blue", "alpha"}), expected()["cube_colours"], 0, what + " colours");
}

TEST(PointCloudFilesFixtures, TrimeshCubeReadsFromAsciiAndBinaryPlyAndOff) {
  expect_cube(read_point_cloud(fixture_path("cube_trimesh_ascii.ply")), true, "ascii PLY");
  expect_cube(read_point_cloud(fixture_path("cube_trimesh_binary.ply")), true, "binary PLY");
  const PointCloudFile off = read_point_cloud(fixture_path("cube_trimesh.off"));
  expect_cube(off, false, "OFF");
  EXPECT_TRUE(off.property_names.empty());
}

void expect_open3d_cloud(const PointCloudFile& cloud, const std::vector<std::string>& normal_names,
                         double tolerance, const std::string& what) {
  expect_rows(cloud.points, expected()["cloud_points"], tolerance, what + " points");
  if (normal_names.empty()) return;
  expect_rows(columns(cloud, normal_names), expected()["cloud_normals"], tolerance, what + " normals");
  expect_rows(columns(cloud, {"red", "green", "blue"}), expected()["cloud_colours"], 0, what + " colours");
  EXPECT_EQ(cloud.faces.size(0), 0) << what;
}

TEST(PointCloudFilesFixtures, Open3dCloudReadsFromPlyPcdInEveryDataKindAndXyz) {
  for (const char* name : {"cloud_open3d_ascii.ply", "cloud_open3d_binary.ply"})
    expect_open3d_cloud(read_point_cloud(fixture_path(name)), {"nx", "ny", "nz"}, 1e-6, name);
  for (const char* name : {"cloud_open3d_ascii.pcd", "cloud_open3d_binary.pcd", "cloud_open3d_compressed.pcd"})
    expect_open3d_cloud(read_point_cloud(fixture_path(name)), {"normal_x", "normal_y", "normal_z"}, 1e-6, name);
  // Open3D writes XYZ with 10 decimals.
  expect_open3d_cloud(read_point_cloud(fixture_path("cloud_open3d.xyz")), {}, 1e-9 + 1e-7, "XYZ");
}

PointCloudFile sample_cloud() {
  PointCloudFile cloud;
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> uniform(-2, 2);
  std::vector<float> xyz, props;
  for (int i = 0; i < 40; ++i) {
    for (int c = 0; c < 3; ++c) xyz.push_back(uniform(engine));
    props.insert(props.end(), {uniform(engine), float((i * 41) % 256), float((i * 7) % 256), float((i * 13) % 256),
                               float(i % 5)});
  }
  cloud.points = from_vector(xyz, Shape{40, 3});
  cloud.property_names = {"nx", "red", "green", "blue", "label"};
  cloud.properties = from_vector(props, Shape{40, 5});
  cloud.faces = from_vector(std::vector<int64_t>{0, 1, 2, 2, 3, 39, 10, 20, 30}, Shape{3, 3});
  return cloud;
}

void expect_same(const PointCloudFile& a, const PointCloudFile& b, bool properties, bool faces, const std::string& what) {
  EXPECT_EQ(a.points.to_vector<float>(), b.points.to_vector<float>()) << what;
  if (properties) {
    EXPECT_EQ(a.property_names, b.property_names) << what;
    EXPECT_EQ(a.properties.to_vector<float>(), b.properties.to_vector<float>()) << what;
  }
  if (faces) EXPECT_EQ(a.faces.to_vector<int64_t>(), b.faces.to_vector<int64_t>()) << what;
}

TEST(PointCloudFilesRoundTrip, EveryWriterReadsBackThroughItsReader) {
  const PointCloudFile cloud = sample_cloud();
  for (PlyFormat f : {PlyFormat::ascii, PlyFormat::binary_little_endian, PlyFormat::binary_big_endian})
    expect_same(parse_ply(format_ply(cloud, f)), cloud, true, true, "PLY " + std::to_string(int(f)));
  for (PcdData d : {PcdData::ascii, PcdData::binary, PcdData::binary_compressed}) {
    const PointCloudFile back = parse_pcd(format_pcd(cloud, d));
    expect_same(back, cloud, false, false, "PCD " + std::to_string(int(d)));
    // The colours travel packed in "rgb" and come back after the other columns.
    EXPECT_EQ(back.property_names, (std::vector<std::string>{"nx", "label", "red", "green", "blue"}));
    EXPECT_EQ(columns(back, cloud.property_names).to_vector<float>(), cloud.properties.to_vector<float>());
  }
  expect_same(parse_off(format_off(cloud)), cloud, false, true, "OFF");
  const PointCloudFile xyz = parse_xyz(format_xyz(cloud));
  expect_same(xyz, cloud, false, false, "XYZ");
  EXPECT_EQ(xyz.properties.to_vector<float>(), cloud.properties.to_vector<float>());
  EXPECT_EQ(xyz.property_names.front(), "column_3");
}

class PointCloudFilesOnDisk : public strata::testing::TempDirTest {};

TEST_F(PointCloudFilesOnDisk, WritersReplaceTheFileAndReadPointCloudPicksTheReaderByExtension) {
  const PointCloudFile cloud = sample_cloud();
  write_ply(path("a.PLY"), cloud);
  write_off(path("a.off"), cloud);
  write_pcd(path("a.pcd"), cloud, PcdData::binary_compressed);
  write_xyz(path("a.xyz"), cloud);
  write_ply(path("a.PLY"), cloud, PlyFormat::ascii);  // replaces the binary one
  expect_same(read_point_cloud(path("a.PLY")), cloud, true, true, "PLY");
  expect_same(read_point_cloud(path("a.off")), cloud, false, true, "OFF");
  expect_same(read_point_cloud(path("a.pcd")), cloud, false, false, "PCD");
  expect_same(read_point_cloud(path("a.xyz")), cloud, false, false, "XYZ");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 4);  // no temporary file left
  expect_error([&] { read_point_cloud(path("a.obj")); }, {"a.obj", "'.obj'", ".ply"});
  expect_error([&] { write_off(path("missing/a.off"), cloud); }, {"missing/a.off"});
}

TEST(PointCloudFilesFormats, PlyPolygonsAreFanTriangulatedAndOtherElementsSkipped) {
  const std::string ply =
      "ply\nformat ascii 1.0\ncomment a quad and a pentagon\nobj_info by hand\n"
      "element material 1\nproperty list uchar float tint\nproperty uchar id\n"
      "element vertex 5\nproperty float x\nproperty float y\nproperty float z\nproperty double intensity\n"
      "element face 2\nproperty uchar flags\nproperty list uchar int vertex_index\nend_header\n"
      "3 0.5 0.5 0.5 9\n0 0 0 1\n1 0 0 2\n1 1 0 3\n0 1 0 4\n0.5 2 0 5\n7 4 0 1 2 3\n0 5 0 1 2 4 3\n";
  const PointCloudFile cloud = parse_ply(ply);
  EXPECT_EQ(cloud.faces.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 4, 0, 4, 3}));
  EXPECT_EQ(cloud.property("intensity").to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5}));
}

// Big-endian values, written out by hand.
void put_big(std::string& out, auto value) {
  unsigned char b[sizeof value];
  std::memcpy(b, &value, sizeof value);
  for (size_t i = sizeof value; i-- > 0;) out.push_back(static_cast<char>(b[i]));
}

TEST(PointCloudFilesFormats, BinaryPlySkipsListsOfOtherElementsInEitherByteOrder) {
  std::string ply =
      "ply\nformat binary_big_endian 1.0\nelement edge 2\nproperty list short double w\nproperty char k\n"
      "element vertex 1\nproperty double z\nproperty short label\nproperty float x\nproperty float y\nend_header\n";
  put_big(ply, int16_t{2}), put_big(ply, 1.0), put_big(ply, 2.0), put_big(ply, int8_t{-1});
  put_big(ply, int16_t{0}), put_big(ply, int8_t{5});
  put_big(ply, 3.5), put_big(ply, int16_t{-300}), put_big(ply, 1.25f), put_big(ply, -2.0f);
  const PointCloudFile cloud = parse_ply(ply);
  EXPECT_EQ(cloud.points.to_vector<float>(), (std::vector<float>{1.25f, -2.0f, 3.5f}));
  EXPECT_EQ(cloud.property("label").to_vector<float>(), (std::vector<float>{-300}));
  expect_error([&] { parse_ply(ply.substr(0, ply.size() - 1)); }, {"PLY", "element 'vertex' claims 1 x at least 18 bytes, but 17 bytes follow"});
}

TEST(PointCloudFilesFormats, OffTakesModelNetsGluedHeaderCommentsPolygonsAndFaceColours) {
  const PointCloudFile cloud = parse_off("OFF4 2 0\n# a comment\n0 0 0\n1 0 0\n\n1 1 0\n0 1 0\n4 0 1 2 3 255 0 0\n3 3 2 1\n");
  EXPECT_EQ(cloud.points.size(0), 4);
  EXPECT_EQ(cloud.faces.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0, 2, 3, 3, 2, 1}));
  EXPECT_EQ(parse_off("OFF\n# counts next\n1 0 0\n1 2 3\n").points.to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(PointCloudFilesFormats, PcdExpandsCountsSkipsPaddingAndUnpacksRgba) {
  const PointCloudFile cloud = parse_pcd(
      "# hand-written\nVERSION .7\nFIELDS x y z label fpfh _ rgba\nSIZE 4 4 8 2 4 1 4\nTYPE F F F U F U U\n"
      "COUNT 1 1 1 1 3 1 1\nWIDTH 2\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\nDATA ascii\n"
      "1 2 3 7 0.5 0.25 0.125 9 4278190335\n4 5 6 65535 1 2 3 0 16909060\n");
  EXPECT_EQ(cloud.property_names,
            (std::vector<std::string>{"label", "fpfh_0", "fpfh_1", "fpfh_2", "red", "green", "blue", "alpha"}));
  EXPECT_EQ(cloud.properties.to_vector<float>(),
            (std::vector<float>{7, 0.5, 0.25, 0.125, 0, 0, 255, 255, 65535, 1, 2, 3, 2, 3, 4, 1}));
}

// LZF of `bytes` as literal runs only, as another compressor may emit them.
std::string lzf_literals(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 32) {
    const size_t n = std::min<size_t>(32, bytes.size() - i);
    out += static_cast<char>(n - 1);
    out += bytes.substr(i, n);
  }
  return out;
}

std::string le32(uint32_t v) { return {char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }

TEST(PointCloudFilesFormats, PcdBinaryCompressedKeepsEachFieldsCountTogetherPerPoint) {
  // Two points; fields x y z (float) and n (int16, COUNT 2), laid out field by field.
  std::string soa;
  for (float v : {1.f, 4.f, 2.f, 5.f, 3.f, 6.f}) soa += le32(std::bit_cast<uint32_t>(v));
  for (int16_t v : {10, 11, -20, -21}) soa += std::string{char(v), char(v >> 8)};
  const std::string compressed = lzf_literals(soa);
  const std::string pcd = "FIELDS x y z n\nSIZE 4 4 4 2\nTYPE F F F I\nCOUNT 1 1 1 2\nWIDTH 2\nHEIGHT 1\n"
                          "POINTS 2\nDATA binary_compressed\n" + le32(compressed.size()) + le32(soa.size()) + compressed;
  const PointCloudFile cloud = parse_pcd(pcd);
  EXPECT_EQ(cloud.points.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(cloud.properties.to_vector<float>(), (std::vector<float>{10, 11, -20, -21}));
}

TEST(PointCloudFilesFormats, CsvWithAndWithoutHeaderAndCommaSeparatedTxt) {
  const PointCloudFile named = parse_csv("id,Z,y,X\n5,3,2,1\n6,,5,4\n");
  EXPECT_EQ(named.points.to_vector<float>()[0], 1);
  EXPECT_EQ(named.points.to_vector<float>()[2], 3);
  EXPECT_TRUE(std::isnan(named.points.to_vector<float>()[5]));
  EXPECT_EQ(named.property_names, (std::vector<std::string>{"id"}));
  const PointCloudFile plain = parse_csv("1,2,3,4\n5,6,7,8\n");
  EXPECT_EQ(plain.points.size(0), 2);
  EXPECT_EQ(plain.property_names, (std::vector<std::string>{"column_3"}));
  EXPECT_EQ(parse_xyz("# ModelNet40 resampled\n0.1,0.2,0.3,0,0,1\n").property_names.size(), 3u);
  expect_error([] { parse_csv("x,y,z\n1,2,3\n1,2\n"); }, {"CSV", "line 3", "2 values; expected 3"});
}

// A PCD of `points` xyz points whose binary_compressed payload is `lzf`.
std::string pcd_with_lzf(const std::string& lzf, uint32_t points) {
  return "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nPOINTS " + std::to_string(points) + "\nDATA binary_compressed\n" +
         le32(lzf.size()) + le32(points * 12) + lzf;
}

TEST(PointCloudFilesLzf, CompressionRoundTripsRandomAndRepeatedPoints) {
  std::mt19937 engine(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> random(3 * 700), repeated;
  for (float& v : random) v = uniform(engine);
  for (int i = 0; i < 700; ++i) repeated.insert(repeated.end(), {float(i % 3), 0.5f, float(i % 7)});
  for (const auto& values : {random, repeated}) {
    PointCloudFile cloud;
    cloud.points = from_vector(values, Shape{700, 3});
    const std::string compressed = format_pcd(cloud, PcdData::binary_compressed);
    EXPECT_EQ(parse_pcd(compressed).points.to_vector<float>(), values);
    if (&values == &repeated) EXPECT_LT(compressed.size(), format_pcd(cloud, PcdData::binary).size() / 4);
  }
}

TEST(PointCloudFilesHostile, CorruptLzfIsRefused) {
  expect_error([] { parse_pcd(pcd_with_lzf(std::string("\x20\x05", 2), 1)); }, {"PCD", "reaches 6 bytes back"});
  expect_error([] { parse_pcd(pcd_with_lzf(std::string("\x05" "ab", 3), 1)); }, {"runs past the compressed data"});
  expect_error([] { parse_pcd(pcd_with_lzf(std::string("\x00" "a", 2), 1)); }, {"decompresses to 1 bytes; the header says 12"});
  expect_error([] { parse_pcd(pcd_with_lzf(lzf_literals(std::string(24, 'q')) + std::string("\xe0\xff\x00", 3), 4)); },
               {"runs past the uncompressed size 48"});
  // Every single-byte change of a real compressed file is read or refused, never a crash.
  const std::string file = fixture_bytes("cloud_open3d_compressed.pcd");
  const size_t data = file.find("DATA binary_compressed\n") + 23;
  for (size_t i = data; i < file.size(); ++i) {
    std::string bad = file;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    try {
      parse_pcd(bad);
    } catch (const Error&) {
    }
  }
}

TEST(PointCloudFilesHostile, EveryPrefixOfEveryFixtureIsReadOrRefused) {
  for (const char* name : {"cube_trimesh_ascii.ply", "cube_trimesh_binary.ply", "cube_trimesh.off",
                           "cloud_open3d_binary.ply", "cloud_open3d_ascii.pcd", "cloud_open3d_binary.pcd",
                           "cloud_open3d_compressed.pcd", "cloud_open3d.xyz"}) {
    const std::string bytes = fixture_bytes(name);
    const bool binary = std::string(name).find("binary") != std::string::npos ||
                        std::string(name).find("compressed") != std::string::npos;
    for (size_t n = 0; n < bytes.size(); ++n) {
      try {
        const std::string path = name;
        const std::string_view prefix(bytes.data(), n);
        if (path.ends_with(".ply")) parse_ply(prefix);
        else if (path.ends_with(".off")) parse_off(prefix);
        else if (path.ends_with(".pcd")) parse_pcd(prefix);
        else parse_xyz(prefix);
        // Text may end on a line boundary that reads as a shorter file; binary data may not.
        EXPECT_FALSE(binary) << name << " cut to " << n << " bytes read without an error";
      } catch (const Error&) {
      }
    }
  }
}

TEST(PointCloudFilesHostile, CountsAreCheckedAgainstTheBytesBeforeAllocating) {
  expect_error([] { parse_ply("ply\nformat binary_little_endian 1.0\nelement vertex 4000000000000\nproperty float x\n"
                              "property float y\nproperty float z\nend_header\n"); },
               {"PLY", "element 'vertex' claims 4000000000000 x at least 12 bytes, but 0 bytes follow"});
  expect_error([] { parse_ply("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                              "property float z\nelement junk 99999999999\nend_header\n0 0 0\n"); },
               {"element 'junk' has 99999999999 records but no properties"});
  expect_error([] { parse_off("OFF\n100000000 0 0\n0 0 0\n"); }, {"OFF", "the vertex count claims 100000000"});
  const std::string pcd_head = "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\n";
  expect_error([&] { parse_pcd(pcd_head + "WIDTH 4294967296\nHEIGHT 4294967296\nDATA binary\n"); },
               {"PCD", "WIDTH x HEIGHT 4294967296 x 4294967296 overflows"});
  expect_error([&] { parse_pcd(pcd_head + "WIDTH 1000\nHEIGHT 1000\nPOINTS 1000000\nDATA binary\n" + std::string(12, 0)); },
               {"POINTS claims 1000000 x at least 12 bytes, but 12 bytes follow"});
  expect_error([&] { parse_pcd(pcd_head + "POINTS 3\nWIDTH 2\nHEIGHT 1\nDATA ascii\n"); }, {"POINTS 3 but WIDTH x HEIGHT is 2"});
  expect_error([&] { parse_pcd(pcd_head + "POINTS 1000\nDATA binary_compressed\n" + le32(4) + le32(12000) + "abcd"); },
               {"cannot hold 12000 bytes"});
}

TEST(PointCloudFilesHostile, FaceIndicesHeadersAndListsAreBounded) {
  const std::string head = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n";
  const std::string verts = "0 0 0\n1 0 0\n0 1 0\n0 0 1\n";
  expect_error([&] { parse_ply(head + "element face 1\nproperty list uchar int vertex_indices\nend_header\n" + verts + "3 0 1 900\n", "t.ply"); },
               {"PLY t.ply: face 0 refers to vertex 900, but the file has 4 vertices"});
  expect_error([&] { parse_ply(head + "element face 1\nproperty list int int vertex_indices\nend_header\n" + verts + "5000 0 1 2\n"); },
               {"face 0 has 5000 vertices; expected 3 to 4096"});
  expect_error([&] { parse_ply(head + "element face 1\nproperty list uchar int vertex_indices\nend_header\n" + verts + "2 0 1\n"); },
               {"face 0 has 2 vertices"});
  expect_error([] { parse_off("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"); }, {"OFF: face 0 refers to vertex 3, but the file has 3 vertices"});
  std::string long_header = "ply\nformat ascii 1.0\n";
  while (long_header.size() <= kMaxHeaderBytes) long_header += "comment " + std::string(100, 'c') + "\n";
  expect_error([&] { parse_ply(long_header + "end_header\n"); }, {"header is longer than 1048576 bytes"});
  std::string many = "ply\nformat ascii 1.0\nelement vertex 0\n";
  for (int i = 0; i < 300; ++i) many += "property float p" + std::to_string(i) + "\n";
  expect_error([&] { parse_ply(many + "end_header\n"); }, {"more than 256 properties"});
  expect_error([] { parse_ply(std::string("ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                                          "property float z\nproperty list char int q\nend_header\n") +
                              std::string(12, '\0') + "\xff"); },
               {"a list length is -1"});
  expect_error([] { parse_ply("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n"); },
               {"needs properties x, y and z"});
  expect_error([] { parse_pcd("FIELDS x y z\nSIZE 4 4 3\nTYPE F F F\nPOINTS 0\nDATA ascii\n"); }, {"field 'z'", "SIZE 3"});
}

}  // namespace files_test
