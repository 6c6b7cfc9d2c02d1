// read_npy / write_npy against NumPy itself (make_npy_fixture.py beside this file), plus the
// ways a .npy file can be wrong.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/temp_dir.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/npy.hpp"

using namespace strata;
using namespace strata::data;

namespace {

const std::string kNpyScript = (std::filesystem::path(STRATA_TESTS_DIR) / "data/make_npy_fixture.py").string();

class Npy : public strata::testing::TempDirTest {
 protected:
  // Runs the fixture script; skips the test when Python or NumPy is unavailable.
  bool run_script(const std::string& mode) {
    if (std::system("python3 --version > /dev/null 2>&1") != 0) return false;
    const int rc = std::system(("python3 '" + kNpyScript + "' " + mode + " '" + dir_.string() + "'").c_str());
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 3) return false;
    EXPECT_EQ(rc, 0) << "make_npy_fixture.py " << mode << " failed";
    return true;
  }
  void write_bytes(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
};

// A v1.0 header for `dict`, padded like NumPy's.
std::string npy_header(std::string dict) {
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(dict.size() & 0xff) +
         static_cast<char>(dict.size() >> 8) + dict;
}

}  // namespace

TEST_F(Npy, ReadsWhatNumPyWrites) {
  if (!run_script("write")) GTEST_SKIP() << "python3 with numpy is not available";
  Tensor f32 = read_npy(path("f32.npy"));
  EXPECT_EQ(f32.dtype(), kFloat32);
  EXPECT_EQ(f32.shape(), Shape({2, 3, 4}));
  EXPECT_FLOAT_EQ(f32.to_vector<float>()[23], 23.0f / 4);

  Tensor fortran = read_npy(path("f64_fortran.npy"));
  EXPECT_EQ(fortran.dtype(), kFloat64);
  EXPECT_EQ(fortran.shape(), Shape({3, 4}));
  std::vector<double> expected;
  for (int i = 0; i < 12; ++i) expected.push_back(i - 5.5);
  EXPECT_EQ(fortran.to_vector<double>(), expected);

  EXPECT_EQ(read_npy(path("i64.npy")).to_vector<int64_t>(), (std::vector<int64_t>{-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5}));
  Tensor i32 = read_npy(path("i32.npy"));
  EXPECT_EQ(i32.dtype(), kInt32);
  EXPECT_EQ(i32.to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 3, INT32_MIN}));
  EXPECT_EQ(read_npy(path("u8.npy")).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1, 128, 255}));
  Tensor b = read_npy(path("bool.npy"));
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(read_npy(path("f32_big_endian.npy")).to_vector<float>(), (std::vector<float>{1.5f, -2.25f, 3e10f}));
  Tensor scalar = read_npy(path("scalar.npy"));
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.item<double>(), 3.5);
  EXPECT_EQ(read_npy(path("empty.npy")).shape(), Shape({0, 3}));
}

TEST_F(Npy, NumPyReadsWhatStrataWrites) {
  write_npy(path("strata_f32.npy"), arange(0, 12, 1, kFloat32).reshape({3, 4}).transpose(0, 1));
  write_npy(path("strata_i64.npy"), arange(-3, 3));
  write_npy(path("strata_u8.npy"), full({1, 1}, 7, kUInt8));
  write_npy(path("strata_bool.npy"), from_vector<bool>({true, false}));
  write_npy(path("strata_scalar.npy"), scalar_tensor(-0.5, kFloat64));
  // Round trip through Strata alone, whatever Python has.
  Tensor back = read_npy(path("strata_f32.npy"));
  EXPECT_EQ(back.shape(), Shape({4, 3}));
  EXPECT_EQ(back.to_vector<float>(), arange(0, 12, 1, kFloat32).reshape({3, 4}).transpose(0, 1).to_vector<float>());
  EXPECT_EQ(read_npy(path("strata_scalar.npy")).dim(), 0);
  if (!run_script("check")) GTEST_SKIP() << "python3 with numpy is not available";
}

TEST_F(Npy, BadFilesNameTheFileAndTheProblem) {
  auto expect_error = [&](const std::string& name, const std::string& bytes, const std::string& says) {
    write_bytes(name, bytes);
    try {
      read_npy(path(name));
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path(name)), std::string::npos) << what;
      EXPECT_NE(what.find(says), std::string::npos) << what;
    }
  };
  expect_error("magic.npy", "PK\x03\x04 not numpy at all", "magic");
  expect_error("dtype.npy", npy_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }") + std::string(8, 0),
               "unsupported .npy dtype");
  expect_error("short.npy", npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") + std::string(20, 0),
               "24 data bytes");
  expect_error("long.npy", npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }") + std::string(8, 0),
               "4 data bytes");
  expect_error("header.npy", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 18), "truncated .npy header");
  expect_error("shape.npy", npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"), "malformed .npy shape");
  EXPECT_THROW(read_npy(path("missing.npy")), Error);
  EXPECT_THROW(write_npy(path("no/such/dir/x.npy"), arange(3)), Error);
}
