// Issue 13.2: a shape read from a file is checked for overflow, must match the bytes present and
// is bounded by limits().max_tensor_bytes, in every reader (one helper, core/checked_size.hpp).
// The hostile files are built here, byte by byte.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/expect_error.hpp"
#include "readers_fixture.hpp"
#include "strata/core/checked_size.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/cifar.hpp"
#include "strata/data/csv.hpp"
#include "strata/data/dataset.hpp"
#include "strata/data/idx.hpp"
#include "strata/data/npy.hpp"
#include "strata/hub/hub.hpp"
#include "strata/io/hdf5.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/npz.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::testing {
namespace {

using ReadersTensorSizes = ReadersTest;

// 2^62 + 1 float32: 2^64 + 4 bytes, which wraps to the 4 bytes the file holds.
constexpr const char* kWrappingHeader =
    R"({"x":{"dtype":"F32","shape":[4611686018427387905],"data_offsets":[0,4]}})";

std::string safetensors_bytes(std::string header, const std::string& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  const uint64_t n = header.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

TEST(CheckedSize, RefusesNegativeOverflowingAndTooManySizes) {
  EXPECT_EQ(checked_size(std::array<int64_t, 2>{3, 5}, 4, "f").bytes, 60u);
  EXPECT_EQ(checked_size(std::array<int64_t, 2>{0, 5}, 4, "f").numel, 0);
  expect_error([] { checked_size(std::array<int64_t, 2>{3, -5}, 4, "f.npy"); }, {"f.npy", "[3, -5]", "negative"});
  expect_error([] { checked_size(std::array<uint64_t, 1>{(uint64_t{1} << 62) + 1}, 4, "f"); },
               {"[4611686018427387905]", "overflows"});
  // An empty tensor whose other sizes would overflow its strides is refused too.
  expect_error([] { checked_size(std::array<uint64_t, 3>{0, uint64_t{1} << 40, uint64_t{1} << 40}, 4, "f"); },
               {"overflows"});
  expect_error([] { checked_size(std::array<int64_t, 9>{}, 1, "f"); }, {"9 dimensions", "at most 8"});
}

TEST_F(ReadersTensorSizes, SafetensorsShapeWhoseByteCountWrapsIsRefused) {
  expect_error([] { io::from_safetensors(safetensors_bytes(kWrappingHeader, "abcd")); },
               {"tensor \"x\"", "4611686018427387905", "overflows"});
}

TEST_F(ReadersTensorSizes, SafetensorsTensorOverTheLimitIsRefusedBeforeItsDataIsRead) {
  limits().max_tensor_bytes = 1024;
  const std::string file = write("big.safetensors",
                                 safetensors_bytes(R"({"w":{"dtype":"F32","shape":[16,17],"data_offsets":[0,1088]}})",
                                                   std::string(1088, '\0')));
  expect_limit_error([&] { io::load_safetensors(file); }, "max_tensor_bytes", file);
}

struct CliResult {
  int status = -1;     // the exit status; -1 when the CLI died of a signal
  std::string stderr_text;
};

// Runs `strata <args>` with the hub `db`.
CliResult run_cli(const std::string& args, const std::string& db, const std::string& stderr_path) {
  const std::string cmd =
      std::string("'") + STRATA_CLI_PATH + "' " + args + " --hub '" + db + "' 2>'" + stderr_path + "' >/dev/null";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream text;
  text << std::ifstream(stderr_path).rdbuf();
  r.stderr_text = text.str();
  return r;
}

// The poisoned hub of the issue: importing the crafted file used to succeed, and every later
// show, export or load of the model crashed. The import is refused and the hub stays clean.
TEST_F(ReadersTensorSizes, HubImportOfAWrappingShapeIsRefused) {
  const std::string file = write("poison.safetensors", safetensors_bytes(kWrappingHeader, "abcd"));
  const std::string db = path("hub.db");
  const CliResult r = run_cli("hub import '" + file + "' poisoned", db, path("stderr.txt"));
  EXPECT_EQ(r.status, 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("overflows"), std::string::npos) << r.stderr_text;
  EXPECT_TRUE(hub::Hub::open(db).list_models("poisoned").empty());
}

// A hub poisoned before the fix holds the crafted header in a blob: show, export and load now
// fail with an error instead of crashing. Such a blob is made the way the old import made it.
TEST_F(ReadersTensorSizes, AHubPoisonedBeforeTheFixFailsCleanly) {
  Tensor poison;
  try {
    poison = Tensor::empty(Shape{(int64_t{1} << 62) + 1}, kFloat32);
  } catch (const Error&) {
    GTEST_SKIP() << "core refuses the wrapping shape itself: no hub can be poisoned this way";
  }
  const std::string db = path("hub.db");
  hub::Hub::open(db).save_model("poisoned", {{"x", poison}});
  expect_error([&] { hub::Hub::open(db).load_model("poisoned"); }, {"tensor \"x\"", "overflows"});
  const std::string export_args = "hub export poisoned '" + path("out.safetensors") + "'";
  for (const std::string& args : {std::string("hub show poisoned"), export_args}) {
    const CliResult r = run_cli(args, db, path("stderr.txt"));
    EXPECT_EQ(r.status, 1) << args << ": " << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("overflows"), std::string::npos) << args << ": " << r.stderr_text;
  }
}

TEST_F(ReadersTensorSizes, NpyShapeOverTheLimitIsALimitError) {
  limits().max_tensor_bytes = 1 << 20;
  const std::string file = write("big.npy", io::encode_npy_header("<f4", {1 << 20}));
  expect_limit_error([&] { data::read_npy(file); }, "max_tensor_bytes", file);
}

// An .npz entry is read (and inflated) whole: its declared size is bounded before that.
TEST_F(ReadersTensorSizes, NpzEntryOverTheLimitIsRefusedBeforeItIsInflated) {
  const std::string file = path("w.npz");
  io::save_npz(file, {{"w", zeros({64, 64})}}, /*compress=*/true);
  limits().max_tensor_bytes = 64 * 64 * 4;  // the array fits; with its .npy header, the entry does not
  expect_limit_error([&] { io::load_npz(file); }, "max_tensor_bytes", "entry 'w.npy'");
}

TEST_F(ReadersTensorSizes, Hdf5DatasetOverTheLimitIsALimitError) {
  const std::string file = path("w.h5");
  io::save_hdf5_weights(file, {{"dense", {{"dense/W", zeros({64, 64})}}}});
  limits().max_tensor_bytes = 64 * 64 * 4 - 1;
  expect_limit_error([&] { io::load_hdf5_weights(file); }, "max_tensor_bytes", "dense/W");
}

std::string idx_header(uint8_t type, std::initializer_list<uint32_t> sizes) {
  std::string out{'\0', '\0', static_cast<char>(type), static_cast<char>(sizes.size())};
  for (uint32_t s : sizes)
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((s >> shift) & 0xff);
  return out;
}

TEST_F(ReadersTensorSizes, IdxSizesOverTheLimitAreALimitError) {
  // int8 data widens to int32: the limit applies to the tensor made, four bytes an element.
  const std::string file = write("images-idx3-ubyte", idx_header(0x09, {300}) + std::string(300, '\1'));
  limits().max_tensor_bytes = 1000;
  expect_limit_error([&] { data::read_idx(file); }, "max_tensor_bytes", file);
  limits().max_tensor_bytes = 1200;
  EXPECT_EQ(data::read_idx(file).numel(), 300);
}

TEST_F(ReadersTensorSizes, CsvTableOverTheLimitIsALimitError) {
  std::string text = "a,b\n";
  for (int row = 0; row < 100; ++row) text += ",\n";  // empty fields: 8 float bytes from 2 file bytes
  const std::string file = write("t.csv", text);
  limits().max_tensor_bytes = 400;
  expect_limit_error([&] { data::read_csv(file); }, "max_tensor_bytes", file);
  limits().max_tensor_bytes = 800;
  EXPECT_EQ(data::read_csv(file).features.numel(), 200);
}

TEST_F(ReadersTensorSizes, FileReadWholeOverTheLimitIsALimitError) {
  const std::string file = write("data_batch_1.bin", std::string(2 * 3073, '\0'));
  limits().max_tensor_bytes = 3 * 3073;
  EXPECT_EQ(data::read_cifar10(file).images.size(0), 2);
  limits().max_tensor_bytes = 3073;
  expect_limit_error([&] { data::read_cifar10(file); }, "max_tensor_bytes", file);
}

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A cache file (data/example_file.hpp) of one record: one float32 field of `size` elements with
// 4 data bytes, then an index of `count` entries (only one of which is written).
std::string cache_file(int64_t size, int64_t count) {
  std::string out = "STRATA-EXAMPLES-1\n";
  const int64_t record = static_cast<int64_t>(out.size());
  put<uint32_t>(out, 1);
  put<uint8_t>(out, static_cast<uint8_t>(DType::f32));
  put<uint32_t>(out, 1);
  put<int64_t>(out, size);
  out += "abcd";
  put<int64_t>(out, record);
  put<int64_t>(out, count);
  return out + "END!";
}

TEST_F(ReadersTensorSizes, CacheFileRecordWithAWrappingShapeIsRefused) {
  const std::string file = write("cache.bin", cache_file((int64_t{1} << 62) + 1, 1));
  const data::Dataset cached = data::TensorDataset({zeros({1})}).cache(file);
  expect_error([&] { cached.get(0); }, {file, "record 0", "overflows"});
}

TEST_F(ReadersTensorSizes, CacheFileIndexCountThatWrapsIsRefused) {
  // 2^61 + 1 entries of 8 bytes: 2^64 + 8 bytes, which wraps to 8.
  const std::string file = write("cache.bin", cache_file(1, (int64_t{1} << 61) + 1));
  const data::Dataset cached = data::TensorDataset({zeros({1})}).cache(file);
  expect_error([&] { cached.get(0); }, {file, "not a complete Strata example file"});
}

}  // namespace
}  // namespace strata::testing
