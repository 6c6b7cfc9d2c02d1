// read_mat on files scipy.io.savemat wrote (tests/data/make_tl_fixtures.py: plain and
// compressed), on level-5 features scipy does not write (storage narrower than the class, big
// endian, small data elements) built byte by byte here, and on hostile bytes.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/core/limits.hpp"
#include "strata/data/mat_file.hpp"

namespace {

using strata::data::MatFile;
using strata::data::MatValue;

std::string mat_fixture(const std::string& name) {
  return (std::filesystem::path(STRATA_TESTS_DIR) / "data/tl_fixtures" / name).string();
}

// Level-5 bytes, written the way the MathWorks document lays them out, in either byte order.
struct MatBytesWriter {
  bool big = false;
  std::vector<unsigned char> out;

  void u32(std::vector<unsigned char>& b, uint32_t v) const {
    for (int i = 0; i < 4; ++i) b.push_back(big ? (v >> (24 - 8 * i)) & 0xFF : (v >> (8 * i)) & 0xFF);
  }
  void u16(std::vector<unsigned char>& b, uint16_t v) const {
    if (big)
      b.push_back(v >> 8), b.push_back(v & 0xFF);
    else
      b.push_back(v & 0xFF), b.push_back(v >> 8);
  }
  // A tagged element, padded to 8 bytes.
  std::vector<unsigned char> element(uint32_t type, const std::vector<unsigned char>& data) const {
    std::vector<unsigned char> b;
    u32(b, type);
    u32(b, uint32_t(data.size()));
    b.insert(b.end(), data.begin(), data.end());
    while (b.size() % 8) b.push_back(0);
    return b;
  }
  std::vector<unsigned char> header(uint16_t version = 0x0100) const {
    std::vector<unsigned char> h(116, ' ');
    std::memcpy(h.data(), "MATLAB 5.0 MAT-file, written by test_mat_file", 45);
    h.resize(124, 0);
    u16(h, version);
    if (big)
      h.push_back('M'), h.push_back('I');
    else
      h.push_back('I'), h.push_back('M');
    return h;
  }
  // A numeric miMATRIX of class `cls` whose data is `data` stored as `type`.
  std::vector<unsigned char> matrix(uint32_t cls, std::vector<int32_t> dims, const std::string& name, uint32_t type,
                                    const std::vector<unsigned char>& data) const {
    std::vector<unsigned char> flags, d, body;
    u32(flags, cls);
    u32(flags, 0);
    for (int32_t v : dims) u32(d, uint32_t(v));
    for (const auto& part :
         {element(6, flags), element(5, d), element(1, {name.begin(), name.end()}), element(type, data)})
      body.insert(body.end(), part.begin(), part.end());
    return element(14, body);
  }
  MatFile parse(const std::vector<unsigned char>& variable) const {
    std::vector<unsigned char> file = header();
    file.insert(file.end(), variable.begin(), variable.end());
    return strata::data::parse_mat(file, "test.mat");
  }
};

void mat_expect_basics(const MatFile& mat) {
  const MatValue& d = mat.at("d");
  EXPECT_EQ(d.class_name, "double");
  ASSERT_EQ(d.array.shape(), strata::Shape({2, 3}));
  const auto dv = d.array.to_vector<double>();
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(dv[i], i / 4.0 - 0.5);  // row-major, as scipy's array

  const MatValue& u8 = mat.at("u8");
  ASSERT_EQ(u8.array.dtype(), strata::kUInt8);
  ASSERT_EQ(u8.array.shape(), strata::Shape({2, 3, 4}));
  const auto uv = u8.array.to_vector<int>();
  for (int i = 0; i < 24; ++i) EXPECT_EQ(uv[i], i * 7 % 256);

  const auto iv = mat.at("i16").array.to_vector<int>();
  ASSERT_EQ(mat.at("i16").array.shape(), strata::Shape({3, 2}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(iv[i], i * -300);

  const auto fv = mat.at("f32").array.to_vector<float>();
  EXPECT_EQ(fv, (std::vector<float>{1.5f, -2.25f, 3e-3f}));
  EXPECT_EQ(mat.at("i64").array.to_vector<int64_t>(),
            (std::vector<int64_t>{-(int64_t{1} << 40), (int64_t{1} << 40) + 3}));
  EXPECT_EQ(mat.at("flags").array.dtype(), strata::kBool);
  EXPECT_EQ(mat.at("flags").array.to_vector<int>(), (std::vector<int>{1, 0, 1}));

  EXPECT_EQ(mat.at("s").text(), "hello, MAT");
  EXPECT_EQ(mat.at("rows").rows, (std::vector<std::string>{"ab", "cd"}));

  const MatValue& c = mat.at("c");
  ASSERT_EQ(c.kind, MatValue::Kind::cell);
  ASSERT_EQ(c.cells.size(), 3u);
  EXPECT_EQ(c.cell(0).scalar(), 1.0);
  EXPECT_EQ(c.cell(1).text(), "xy");
  EXPECT_EQ(c.cell(2).array.to_vector<double>(), (std::vector<double>{0, 1, 2}));

  const MatValue& st = mat.at("st");
  ASSERT_EQ(st.kind, MatValue::Kind::structure);
  EXPECT_EQ(st.field_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(st.numel(), 2);
  EXPECT_EQ(st.field("a", 1).scalar(), 2.0);
  EXPECT_EQ(st.field("b", 0).text(), "one");
  EXPECT_THROW(st.field("c"), strata::Error);
  EXPECT_THROW(st.field("a", 2), strata::Error);

  EXPECT_TRUE(mat.at("empty").empty());
  EXPECT_THROW(mat.at("missing"), strata::Error);
}

TEST(MatFile, ReadsWhatScipyWrotePlain) { mat_expect_basics(strata::data::read_mat(mat_fixture("basic.mat"))); }

TEST(MatFile, ReadsWhatScipyWroteCompressed) {
  mat_expect_basics(strata::data::read_mat(mat_fixture("basic_compressed.mat")));
}

TEST(MatFile, ConvertsNarrowStorageToTheClassInEitherByteOrder) {
  // MATLAB stores a double array whose values fit in uint8 as miUINT8 (2); and a 1x1 int32 in a
  // small data element. Both byte orders.
  for (bool big : {false, true}) {
    MatBytesWriter w{big};
    std::vector<unsigned char> var = w.matrix(6, {2, 2}, "a", 2, {1, 2, 3, 250});
    const MatFile mat = w.parse(var);
    const MatValue& a = mat.at("a");
    EXPECT_EQ(a.array.dtype(), strata::kFloat64);
    // Column-major 1 2 3 250 is [[1, 3], [2, 250]].
    EXPECT_EQ(a.array.to_vector<double>(), (std::vector<double>{1, 3, 2, 250})) << "big endian " << big;

    // The small element: type and byte count share the first word, the value the second.
    std::vector<unsigned char> flags, dims, small, body;
    w.u32(flags, 12), w.u32(flags, 0);
    w.u32(dims, 1), w.u32(dims, 1);
    w.u32(small, (4u << 16) | 5u);  // 4 bytes of miINT32
    w.u32(small, uint32_t(-7));
    for (const auto& part : {w.element(6, flags), w.element(5, dims), w.element(1, {'b'}), small})
      body.insert(body.end(), part.begin(), part.end());
    EXPECT_EQ(w.parse(w.element(14, body)).at("b").array.to_vector<int>(), std::vector<int>{-7});
  }
}

TEST(MatFile, RefusesHostileBytes) {
  MatBytesWriter w;
  const std::vector<unsigned char> good = w.matrix(6, {1, 3}, "v", 9, std::vector<unsigned char>(24, 0));
  EXPECT_NO_THROW(w.parse(good));
  // Truncated anywhere inside the element.
  for (size_t cut : {size_t(3), size_t(20), good.size() - 9}) {
    std::vector<unsigned char> t(good.begin(), good.begin() + cut);
    EXPECT_THROW(w.parse(t), strata::Error) << "cut at " << cut;
  }
  // Dims that claim more elements than the data holds, and absurdly many.
  EXPECT_THROW(w.parse(w.matrix(6, {1, 4}, "v", 9, std::vector<unsigned char>(24, 0))), strata::Error);
  EXPECT_THROW(w.parse(w.matrix(1, {1 << 30, 1 << 30}, "c", 14, {})), strata::Error);
  EXPECT_THROW(w.parse(w.matrix(6, {-1, 3}, "v", 9, std::vector<unsigned char>(24, 0))), strata::Error);
  // An integer class stored as a NaN double.
  std::vector<unsigned char> nan(8, 0);
  nan[6] = 0xF8, nan[7] = 0x7F;
  EXPECT_THROW(w.parse(w.matrix(12, {1, 1}, "i", 9, nan)), strata::Error);
  // Not a level-5 file; a v7.3 (HDF5) file.
  EXPECT_THROW(strata::data::parse_mat(std::vector<unsigned char>(200, 0), "zeros.mat"), strata::Error);
  try {
    strata::data::parse_mat(w.header(0x0200), "v73.mat");
    FAIL() << "a v7.3 header was read";
  } catch (const strata::Error& e) {
    EXPECT_NE(std::string(e.what()).find("HDF5"), std::string::npos) << e.what();
  }
}

TEST(MatFile, BoundsNestingAndInflatedSize) {
  MatBytesWriter w;
  // Cells inside cells, 100 deep: refused at the depth limit, read with a larger one.
  std::vector<unsigned char> v = w.matrix(6, {1, 1}, "", 9, std::vector<unsigned char>(8, 0));
  for (int i = 0; i < 100; ++i) {
    std::vector<unsigned char> flags, dims, body;
    w.u32(flags, 1), w.u32(flags, 0);
    w.u32(dims, 1), w.u32(dims, 1);
    for (const auto& part : {w.element(6, flags), w.element(5, dims), w.element(1, {}), v})
      body.insert(body.end(), part.begin(), part.end());
    v = w.element(14, body);
  }
  std::vector<unsigned char> file = w.header();
  file.insert(file.end(), v.begin(), v.end());
  EXPECT_THROW(strata::data::parse_mat(file, "deep.mat"), strata::Error);
  EXPECT_EQ(strata::data::parse_mat(file, "deep.mat", {.max_depth = 128}).variables.size(), 1u);

  // A compressed element that inflates past max_tensor_bytes: a LimitError, nothing allocated.
  std::vector<unsigned char> big = w.matrix(6, {1, 1 << 17}, "z", 9, std::vector<unsigned char>(8 << 17, 0));
  uLongf n = compressBound(big.size());
  std::vector<unsigned char> z(n);
  ASSERT_EQ(compress2(z.data(), &n, big.data(), big.size(), 9), Z_OK);
  z.resize(n);
  std::vector<unsigned char> zfile = w.header(), tag;
  w.u32(tag, 15), w.u32(tag, uint32_t(z.size()));
  zfile.insert(zfile.end(), tag.begin(), tag.end());
  zfile.insert(zfile.end(), z.begin(), z.end());
  EXPECT_EQ(strata::data::parse_mat(zfile, "z.mat").at("z").numel(), 1 << 17);
  const uint64_t saved = strata::limits().max_tensor_bytes;
  strata::limits().max_tensor_bytes = 1 << 16;
  EXPECT_THROW(strata::data::parse_mat(zfile, "z.mat"), strata::LimitError);
  strata::limits().max_tensor_bytes = saved;
  // The same stream cut short (the tag says so too).
  zfile.resize(zfile.size() - 10);
  std::vector<unsigned char> cut_tag;
  w.u32(cut_tag, uint32_t(z.size() - 10));
  std::copy(cut_tag.begin(), cut_tag.end(), zfile.begin() + 132);
  EXPECT_THROW(strata::data::parse_mat(zfile, "z.mat"), strata::Error);
}

}  // namespace
