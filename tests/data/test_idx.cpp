// read_idx and load_fashion_mnist: small IDX files written here (plain and gzip), each way a
// file can be wrong, and the real Fashion-MNIST when Debian's package is installed.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <string>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/data/idx.hpp"

namespace fs = std::filesystem;
using strata::Tensor;
using strata::data::load_fashion_mnist;
using strata::data::read_idx;
using Bytes = std::vector<unsigned char>;

namespace {

// A fresh directory per test (tests/support/temp_dir.hpp), and files written into it.
class IdxTest : public strata::testing::TempDirTest {
 protected:
  // Writes `bytes` to dir/name, gzip-compressed when the name ends in ".gz".
  std::string write(const std::string& name, const Bytes& bytes) const {
    const std::string p = path(name);
    if (name.ends_with(".gz")) {
      gzFile f = gzopen(p.c_str(), "wb");
      EXPECT_NE(f, nullptr);
      if (!bytes.empty()) EXPECT_EQ(gzwrite(f, bytes.data(), bytes.size()), static_cast<int>(bytes.size()));
      gzclose(f);
    } else {
      std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    return p;
  }

};

void put_be(Bytes& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// An IDX header: magic with `code`, then the sizes.
Bytes header(unsigned char code, std::initializer_list<uint32_t> dims) {
  Bytes out{0, 0, code, static_cast<unsigned char>(dims.size())};
  for (uint32_t d : dims) put_be(out, d, 4);
  return out;
}

template <class T>
Bytes idx_file(unsigned char code, std::initializer_list<uint32_t> dims, const std::vector<T>& values) {
  Bytes out = header(code, dims);
  for (T v : values) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    put_be(out, bits, sizeof(T));
  }
  return out;
}

using strata::testing::expect_error;

}  // namespace

TEST_F(IdxTest, ReadsUint8PlainAndGzip) {
  std::vector<uint8_t> values = {0, 1, 2, 127, 128, 255};
  for (const std::string name : {"u8.idx", "u8.idx.gz"}) {
    Tensor t = read_idx(write(name, idx_file<uint8_t>(0x08, {2, 3}, values)));
    EXPECT_EQ(t.dtype(), strata::kUInt8);
    EXPECT_EQ(t.shape(), strata::Shape({2, 3}));
    EXPECT_EQ(t.to_vector<uint8_t>(), values);
  }
}

TEST_F(IdxTest, GzipIsRecognisedByContentNotName) {
  Tensor t = read_idx(write("compressed.gz", idx_file<uint8_t>(0x08, {2}, {7, 9})));
  fs::rename(path("compressed.gz"), path("no_suffix"));
  EXPECT_EQ(read_idx(path("no_suffix")).to_vector<uint8_t>(), t.to_vector<uint8_t>());
}

TEST_F(IdxTest, ReadsBigEndianWiderTypes) {
  std::vector<int32_t> i32 = {1, -2, 0x01020304, INT32_MIN};
  Tensor a = read_idx(write("i32.gz", idx_file<int32_t>(0x0C, {4}, i32)));
  EXPECT_EQ(a.dtype(), strata::kInt32);
  EXPECT_EQ(a.to_vector<int32_t>(), i32);

  std::vector<float> f32 = {1.5f, -0.25f, 3e38f, 1e-40f};
  Tensor b = read_idx(write("f32", idx_file<float>(0x0D, {2, 1, 2}, f32)));
  EXPECT_EQ(b.dtype(), strata::kFloat32);
  EXPECT_EQ(b.shape(), strata::Shape({2, 1, 2}));
  EXPECT_EQ(b.to_vector<float>(), f32);

  std::vector<double> f64 = {3.141592653589793, -1e300};
  Tensor c = read_idx(write("f64.gz", idx_file<double>(0x0E, {2}, f64)));
  EXPECT_EQ(c.dtype(), strata::kFloat64);
  EXPECT_EQ(c.to_vector<double>(), f64);
}

TEST_F(IdxTest, WidensSignedNarrowTypesToInt32) {
  Tensor a = read_idx(write("i8", idx_file<int8_t>(0x09, {3}, {-128, -1, 127})));
  EXPECT_EQ(a.dtype(), strata::kInt32);
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{-128, -1, 127}));
  Tensor b = read_idx(write("i16.gz", idx_file<int16_t>(0x0B, {2, 2}, {-32768, -2, 258, 32767})));
  EXPECT_EQ(b.dtype(), strata::kInt32);
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{-32768, -2, 258, 32767}));
}

TEST_F(IdxTest, ReadsEmptyAndZeroDimensional) {
  Tensor empty = read_idx(write("empty", header(0x08, {0, 28})));
  EXPECT_EQ(empty.shape(), strata::Shape({0, 28}));
  Tensor scalar = read_idx(write("scalar.gz", idx_file<float>(0x0D, {}, {2.5f})));
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.item<float>(), 2.5f);
}

TEST_F(IdxTest, MissingFile) {
  const std::string p = path("nope.gz");
  expect_error([&] { read_idx(p); }, {"read_idx", p, "no such file"});
  expect_error([&] { read_idx(dir_.string()); }, {dir_.string(), "directory"});
}

TEST_F(IdxTest, BadMagic) {
  for (const std::string name : {"magic", "magic.gz"}) {
    Bytes b = idx_file<uint8_t>(0x08, {2}, {1, 2});
    b[0] = 0x1F;
    const std::string p = write(name, b);
    expect_error([&] { read_idx(p); }, {p, "bad magic", "0x1F"});
  }
  const std::string tiny = write("tiny", {0, 0});
  expect_error([&] { read_idx(tiny); }, {tiny, "truncated", "magic"});
}

TEST_F(IdxTest, UnknownTypeCode) {
  const std::string p = write("type.gz", idx_file<uint8_t>(0x0A, {2}, {1, 2}));
  expect_error([&] { read_idx(p); }, {p, "unknown type code 0x0A"});
}

TEST_F(IdxTest, TooManyDimensions) {
  const std::string p = write("dims", header(0x08, {1, 1, 1, 1, 1, 1, 1, 1, 1}));
  expect_error([&] { read_idx(p); }, {p, "9 dimensions"});
}

TEST_F(IdxTest, TruncatedHeaderAndData) {
  Bytes head = header(0x08, {2, 3});
  head.resize(6);
  const std::string h = write("head.gz", head);
  expect_error([&] { read_idx(h); }, {h, "truncated", "sizes"});
  for (const std::string name : {"data", "data.gz"}) {
    Bytes b = idx_file<int32_t>(0x0C, {2, 3}, {1, 2, 3, 4, 5, 6});
    b.pop_back();
    const std::string p = write(name, b);
    expect_error([&] { read_idx(p); }, {p, "truncated", "[2, 3]", "24"});
  }
}

TEST_F(IdxTest, TruncatedGzipStream) {
  Bytes full;
  {
    write("whole.gz", idx_file<uint8_t>(0x08, {1000}, std::vector<uint8_t>(1000, 42)));
    std::ifstream in(path("whole.gz"), std::ios::binary);
    full.assign(std::istreambuf_iterator<char>(in), {});
  }
  full.resize(full.size() / 2);  // cut inside the deflate stream
  const std::string p = write("cut", full);
  expect_error([&] { read_idx(p); }, {p});
}

TEST_F(IdxTest, TrailingBytes) {
  for (const std::string name : {"extra", "extra.gz"}) {
    Bytes b = idx_file<uint8_t>(0x08, {2}, {1, 2});
    b.push_back(3);
    const std::string p = write(name, b);
    expect_error([&] { read_idx(p); }, {p, "bytes after", "[2]"});
  }
}

TEST_F(IdxTest, SizesThatOverflowOrExceedTheFile) {
  const std::string over = write("overflow.gz", header(0x0E, {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}));
  expect_error([&] { read_idx(over); }, {over, "overflow"});
  const std::string negative = write("negative", header(0x08, {0x80000000u}));
  expect_error([&] { read_idx(negative); }, {negative, "negative"});
  // Sizes that would allocate gigabytes (within limits().max_tensor_bytes) are refused before
  // allocating, from the file's size.
  const std::string plain = write("huge", header(0x0D, {60000, 100, 100}));
  expect_error([&] { read_idx(plain); }, {plain, "truncated", "[60000, 100, 100]"});
  const std::string gz = write("huge.gz", header(0x0D, {60000, 100, 100}));
  expect_error([&] { read_idx(gz); }, {gz, "more than a gzip file"});
}

TEST_F(IdxTest, LoadsFashionMnistLayoutFromADirectory) {
  std::vector<uint8_t> pixels(3 * 28 * 28);
  std::iota(pixels.begin(), pixels.end(), 0);
  write("train-images-idx3-ubyte.gz", idx_file<uint8_t>(0x08, {3, 28, 28}, pixels));
  write("train-labels-idx1-ubyte.gz", idx_file<uint8_t>(0x08, {3}, {9, 0, 5}));
  write("t10k-images-idx3-ubyte", idx_file<uint8_t>(0x08, {1, 28, 28}, std::vector<uint8_t>(784, 1)));  // not gzipped
  write("t10k-labels-idx1-ubyte", idx_file<uint8_t>(0x08, {1}, {3}));
  auto ds = load_fashion_mnist(dir_.string());
  EXPECT_EQ(ds.train_images.shape(), strata::Shape({3, 28, 28}));
  EXPECT_EQ(ds.train_images.to_vector<uint8_t>(), pixels);
  EXPECT_EQ(ds.train_labels.to_vector<uint8_t>(), (std::vector<uint8_t>{9, 0, 5}));
  EXPECT_EQ(ds.test_images.shape(), strata::Shape({1, 28, 28}));
  EXPECT_EQ(ds.test_labels.to_vector<uint8_t>(), (std::vector<uint8_t>{3}));
}

TEST_F(IdxTest, FashionMnistErrors) {
  const std::string d = dir_.string();
  expect_error([&] { load_fashion_mnist(d); }, {"load_fashion_mnist", "train-images-idx3-ubyte", d});

  write("train-images-idx3-ubyte.gz", idx_file<uint8_t>(0x08, {2, 28, 28}, std::vector<uint8_t>(2 * 784)));
  write("train-labels-idx1-ubyte.gz", idx_file<uint8_t>(0x08, {3}, {1, 2, 3}));
  write("t10k-images-idx3-ubyte.gz", idx_file<uint8_t>(0x08, {1, 28, 28}, std::vector<uint8_t>(784)));
  write("t10k-labels-idx1-ubyte.gz", idx_file<uint8_t>(0x08, {1}, {1}));
  expect_error([&] { load_fashion_mnist(d); }, {"3 labels", "2 images", "train-labels-idx1-ubyte.gz"});

  write("train-labels-idx1-ubyte.gz", idx_file<uint8_t>(0x08, {2}, {1, 10}));
  expect_error([&] { load_fashion_mnist(d); }, {"label 10", "index 1", "0..9"});

  write("train-labels-idx1-ubyte.gz", idx_file<uint8_t>(0x08, {2}, {1, 2}));
  write("train-images-idx3-ubyte.gz", idx_file<uint8_t>(0x08, {2, 784}, std::vector<uint8_t>(2 * 784)));
  expect_error([&] { load_fashion_mnist(d); }, {"[N, 28, 28]", "[2, 784]"});

  write("train-images-idx3-ubyte.gz", idx_file<uint8_t>(0x08, {2, 28, 28}, std::vector<uint8_t>(2 * 784)));
  fs::remove(path("t10k-labels-idx1-ubyte.gz"));
  expect_error([&] { load_fashion_mnist(d); }, {"t10k-labels-idx1-ubyte"});
}

// The statistics below were computed independently with Python's gzip module:
//   labels: each class 6000 times in train, 1000 in test; first labels 9 0 0 3 0 2 7 2 5 5 / 9 2 1 1 6
//   pixels: sum 3431114169 over train (mean 72.94), 573469082 over test; first image sums to 76247
TEST(FashionMnist, LoadsDebianPackage) {
  if (!fs::exists(strata::data::kFashionMnistDebianDir)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  auto ds = load_fashion_mnist();
  EXPECT_EQ(ds.train_images.shape(), strata::Shape({60000, 28, 28}));
  EXPECT_EQ(ds.train_labels.shape(), strata::Shape({60000}));
  EXPECT_EQ(ds.test_images.shape(), strata::Shape({10000, 28, 28}));
  EXPECT_EQ(ds.test_labels.shape(), strata::Shape({10000}));

  auto count_labels = [](const Tensor& labels) {
    std::array<int64_t, 10> counts{};
    for (uint8_t l : labels.to_vector<uint8_t>()) ++counts.at(l);
    return counts;
  };
  for (int64_t c : count_labels(ds.train_labels)) EXPECT_EQ(c, 6000);
  for (int64_t c : count_labels(ds.test_labels)) EXPECT_EQ(c, 1000);
  const uint8_t* train_labels = ds.train_labels.data<uint8_t>();
  EXPECT_EQ(std::vector<int>(train_labels, train_labels + 10), (std::vector<int>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
  const uint8_t* test_labels = ds.test_labels.data<uint8_t>();
  EXPECT_EQ(std::vector<int>(test_labels, test_labels + 5), (std::vector<int>{9, 2, 1, 1, 6}));

  auto pixel_sum = [](const Tensor& images, int64_t n) {
    const uint8_t* p = images.data<uint8_t>();
    return std::accumulate(p, p + n, int64_t{0});
  };
  EXPECT_EQ(pixel_sum(ds.train_images, ds.train_images.numel()), 3431114169);
  EXPECT_EQ(pixel_sum(ds.test_images, ds.test_images.numel()), 573469082);
  EXPECT_EQ(pixel_sum(ds.train_images, 784), 76247);
}
