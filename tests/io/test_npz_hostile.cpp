// Broken and malicious .npz files: each is refused with an error naming the file and the
// problem, before any allocation larger than the file; none crashes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/temp_dir.hpp"
#include "support/expect_error.hpp"
#include "fixtures/python_fixtures.hpp"
#include "strata/core/error.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/npz.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::io;
using strata::testing::expect_error;

namespace {

class NpzHostileTest : public strata::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    file_ = path("bad.npz");
  }

  // A valid archive's bytes: one stored (or deflated) float32 array "x" of 4 elements.
  std::string valid(bool compress = false) {
    save_npz(file_, {{"x", from_vector(std::vector<float>{1, 2, 3, 4})}}, compress);
    std::ifstream in(file_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void write(const std::string& bytes) {
    std::ofstream(file_, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  static void put32(std::string& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  }
  // Offset of the central directory entry (its signature).
  static size_t central(const std::string& b) { return b.find(std::string("PK\x01\x02", 4)); }
  std::string file_;
};

TEST_F(NpzHostileTest, EveryTruncationIsAnErrorNamingTheFile) {
  const std::string b = valid();
  for (size_t n = 0; n < b.size(); ++n) {
    write(b.substr(0, n));
    try {
      load_npz(file_);
      ADD_FAILURE() << "a " << n << "-byte prefix loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(file_), std::string::npos) << e.what();
    }
  }
}

TEST_F(NpzHostileTest, EveryFlippedByteLoadsOrThrowsButNeverCrashes) {
  for (bool compress : {false, true}) {
    const std::string b = valid(compress);
    for (size_t i = 0; i < b.size(); ++i) {
      std::string bad = b;
      bad[i] = static_cast<char>(bad[i] ^ 0x5a);
      write(bad);
      try {
        load_npz(file_);
      } catch (const Error&) {
      }
    }
  }
}

TEST_F(NpzHostileTest, CrcMismatch) {
  std::string b = valid();
  b[b.find("x.npy") + 5 + 128] ^= 0x01;  // a data byte after the 128-byte .npy header
  write(b);
  expect_error([&] { load_npz(file_); }, {file_, "'x.npy'", "CRC-32", "corrupt"});
}

TEST_F(NpzHostileTest, HugeDeclaredSizesAreRefusedBeforeAllocating) {
  const std::string b = valid();
  std::string bad = b;
  put32(bad, central(b) + 20, 0xfffffff0u);  // compressed size
  write(bad);
  expect_error([&] { load_npz(file_); }, {file_, "'x.npy'", "lies past the end"});

  bad = b;
  put32(bad, central(b) + 24, 0xfffffff0u);  // uncompressed size of a stored entry
  write(bad);
  expect_error([&] { load_npz(file_); }, {file_, "declares 4294967280 bytes", "storing"});

  const std::string z = valid(true);
  bad = z;
  put32(bad, central(z) + 24, 0x7ffffff0u);  // a deflate "bomb" beyond deflate's ratio
  write(bad);
  expect_error([&] { load_npz(file_); }, {file_, "more than deflate can give"});

  bad = b;
  const size_t end = b.rfind(std::string("PK\x05\x06", 4));
  put32(bad, end + 12, 0x7fffffffu);  // central directory size
  write(bad);
  expect_error([&] { load_npz(file_); }, {file_, "central directory", "past the end"});
}

TEST_F(NpzHostileTest, NotAZipArchive) {
  write(std::string(100, 'x'));
  expect_error([&] { load_npz(file_); }, {file_, "not a ZIP/.npz archive"});
  expect_error([&] { load_npz((dir_ / "missing.npz").string()); }, {"missing.npz", "cannot open"});
}

// .npy headers inside entries: decode_npy sees exactly what an entry holds.
TEST_F(NpzHostileTest, BadNpyHeaders) {
  auto npy = [](const std::string& dict, const std::string& data) {
    std::string h = dict + "\n";
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
  };
  const std::string four(16, '\0');
  EXPECT_NO_THROW(decode_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four), "a"));
  expect_error([&] { decode_npy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four), "a.npy"); },
               {"a.npy", "Fortran-order"});
  expect_error([&] { decode_npy(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four), "a.npy"); },
               {"a.npy", "big-endian", "'>f4'"});
  expect_error([&] { decode_npy(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four), "a.npy"); },
               {"a.npy", "unsupported .npy dtype '<c8'"});
  expect_error([&] { decode_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four), "a.npy"); },
               {"a.npy", "needs 20 data bytes", "has 16"});
  expect_error(
      [&] { decode_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", four), "a.npy"); },
      {"a.npy", "[1000000000000]", "4000000000000", "max_tensor_bytes"});
  expect_error(
      [&] { decode_npy(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", four), "a"); },
      {"too large"});
  expect_error([&] { decode_npy(npy("{'descr': '<f4', 'shape': (4,), }", four), "a.npy"); }, {"lacks"});
  expect_error([&] { decode_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", four), "a"); },
               {"non-negative integer"});
  expect_error([&] { decode_npy(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", four), "a"); },
               {"structured dtypes are not supported"});
  expect_error([&] { decode_npy(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", "\1\7"), "a"); },
               {"bool element 1 is byte 7"});
  expect_error([&] { decode_npy(std::string("\x93NUMPY\x07\x00", 8) + "xx", "a.npy"); }, {"a.npy", "version 7.0"});
  expect_error([&] { decode_npy(std::string("\x93NUMPY\x01\x00\xff\x00", 10), "a.npy"); }, {"truncated .npy header"});
}

}  // namespace
