// read_npz / load_npz_dataset on archives NumPy wrote (make_npz_fixture.py beside this file),
// and the ways such a file can be wrong.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "support/temp_dir.hpp"
#include "support/expect_error.hpp"
#include "strata/data/npz.hpp"

using namespace strata;
using namespace strata::data;
using strata::testing::expect_error;

namespace {

const std::string kNpzScript = (std::filesystem::path(STRATA_TESTS_DIR) / "data/make_npz_fixture.py").string();

class Npz : public strata::testing::TempDirTest {
 protected:
  // Runs the fixture script; false (the test skips) when Python or NumPy is unavailable.
  bool write_fixtures() {
    if (std::system("python3 --version > /dev/null 2>&1") != 0) return false;
    const int rc = std::system(("python3 '" + kNpzScript + "' write '" + dir_.string() + "'").c_str());
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 3) return false;
    EXPECT_EQ(rc, 0) << "make_npz_fixture.py failed";
    return true;
  }
  std::string read_bytes(const std::string& name) {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void write_bytes(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
};

// The script's x: (arange(30).reshape(5, 2, 3) - 7) / 8.
std::vector<float> expected_x() {
  std::vector<float> x;
  for (int i = 0; i < 30; ++i) x.push_back((i - 7) / 8.0f);
  return x;
}

}  // namespace

TEST_F(Npz, ReadsNamedArraysNumPyWrote) {
  if (!write_fixtures()) GTEST_SKIP() << "python3 with numpy is not available";
  NpzArrays npz = read_npz(path("stored.npz"));
  EXPECT_EQ(npz.names(), (std::vector<std::string>{"x", "y", "mask"}));
  EXPECT_TRUE(npz.contains("mask"));
  EXPECT_FALSE(npz.contains("z"));
  EXPECT_EQ(npz.at("x").dtype(), kFloat32);
  EXPECT_EQ(npz.at("x").shape(), Shape({5, 2, 3}));
  EXPECT_EQ(npz.at("x").to_vector<float>(), expected_x());
  EXPECT_EQ(npz.at("y").to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 4, 1, 5}));
  EXPECT_EQ(npz.at("mask").dtype(), kUInt8);
  EXPECT_EQ(npz.at("mask").to_vector<uint8_t>(), (std::vector<uint8_t>{0, 255, 1, 128}));

  expect_error([&] { npz.at("z"); }, {"stored.npz", "'z'", "x, y, mask"});
}

TEST_F(Npz, DatasetOfRowsFromDeflatedArchive) {
  if (!write_fixtures()) GTEST_SKIP() << "python3 with numpy is not available";
  Dataset ds = load_npz_dataset(path("compressed.npz"), "features", "labels");
  ASSERT_EQ(ds.size(), 5);
  const std::vector<float> x = expected_x();
  const std::vector<int32_t> y = {3, 1, 4, 1, 5};
  for (int64_t i = 0; i < ds.size(); ++i) {
    Example ex = ds.get(i);
    ASSERT_EQ(ex.size(), 2u);
    EXPECT_EQ(ex[0].dtype(), kFloat64);
    EXPECT_EQ(ex[0].shape(), Shape({2, 3}));
    const std::vector<double> row = ex[0].contiguous().to_vector<double>();
    for (int j = 0; j < 6; ++j) EXPECT_EQ(row[j], x[i * 6 + j]) << "example " << i << " value " << j;
    EXPECT_EQ(ex[1].item<int32_t>(), y[i]);
  }
  // Default names x and y, and any number of arrays.
  EXPECT_EQ(load_npz_dataset(path("stored.npz")).size(), 5);
  EXPECT_EQ(read_npz(path("stored.npz")).dataset({"x", "y", "x"}).get(2).size(), 3u);
}

TEST_F(Npz, DatasetArraysMustAgreeOnRows) {
  if (!write_fixtures()) GTEST_SKIP() << "python3 with numpy is not available";
  expect_error([&] { load_npz_dataset(path("mismatch.npz")); }, {"mismatch.npz", "'y' has 4 rows", "'x' has 5"});
  expect_error([&] { load_npz_dataset(path("scalar.npz")); }, {"scalar.npz", "'x' is a scalar"});
  expect_error([&] { load_npz_dataset(path("stored.npz"), "x", "labels"); }, {"stored.npz", "'labels'"});
}

TEST_F(Npz, BadFilesAreErrorsNamingTheFile) {
  expect_error([&] { read_npz(path("absent.npz")); }, {"absent.npz"});

  write_bytes("magic.npz", std::string("NOTAZIP!") + std::string(200, '\0'));
  expect_error([&] { read_npz(path("magic.npz")); }, {"magic.npz"});

  write_bytes("empty.npz", "");
  expect_error([&] { read_npz(path("empty.npz")); }, {"empty.npz"});

  if (!write_fixtures()) GTEST_SKIP() << "python3 with numpy is not available";
  const std::string whole = read_bytes("stored.npz");
  // Cut at several points: inside an entry, inside the central directory, just before its end.
  for (size_t keep : {whole.size() / 3, whole.size() / 2, whole.size() - 30, whole.size() - 1}) {
    write_bytes("truncated.npz", whole.substr(0, keep));
    SCOPED_TRACE("kept " + std::to_string(keep) + " bytes");
    expect_error([&] { read_npz(path("truncated.npz")); }, {"truncated.npz"});
  }
  // A flipped byte inside the first entry (its .npy header) fails the entry's CRC.
  std::string corrupt = whole;
  corrupt[120] = static_cast<char>(corrupt[120] ^ 0x5a);
  write_bytes("corrupt.npz", corrupt);
  expect_error([&] { read_npz(path("corrupt.npz")); }, {"corrupt.npz"});
}
