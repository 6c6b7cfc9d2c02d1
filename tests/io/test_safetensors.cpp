// safetensors: round trips of every dtype (bytes, files, fed in pieces), the exact byte layout,
// every way an input can be wrong, and a check against Hugging Face's Python implementation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/python_fixtures.hpp"
#include "support/temp_dir.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/io/safetensors.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::io;

namespace {

using strata::testing::expect_same;

using SafetensorsTest = strata::testing::TempDirTest;

// The tensors the Python fixture script also builds (make_safetensors_fixture.py, expected()).
NamedTensors every_dtype() {
  std::vector<float> f32{0, 0.5, 1, 1.5, 2, 2.5};
  return {
      {"f32", from_vector(f32, {2, 3})},
      {"f64", from_vector(std::vector<double>{1.5, -2.25, 1e300})},
      {"i64", from_vector(std::vector<int64_t>{-(int64_t{1} << 40), 7}, {2, 1})},
      {"i32", from_vector(std::vector<int32_t>{-3, 0, std::numeric_limits<int32_t>::max()})},
      {"u8", from_vector(std::vector<uint8_t>{0, 255, 17})},
      {"bool", from_vector(std::vector<bool>{true, false, true, true})},
      {"scalar", from_vector(std::vector<float>{3.25f}, Shape{})},
  };
}

// A file from a header given as text and `data` bytes.
std::string raw_file(const std::string& header, const std::string& data, int64_t claimed = -1) {
  std::string out(8, '\0');
  const uint64_t n = claimed < 0 ? header.size() : static_cast<uint64_t>(claimed);
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

void expect_error(const std::string& bytes, const std::string& fragment) {
  try {
    from_safetensors(bytes);
    FAIL() << "expected an error containing \"" << fragment << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST_F(SafetensorsTest, RoundTripsEveryDtypeThroughBytesAndFiles) {
  const NamedTensors t = every_dtype();
  const Metadata meta{{"format", "pt"}, {"note", "quotes \" and ; and ünïcode"}};
  const std::string bytes = to_safetensors(t, meta);
  EXPECT_EQ(bytes.size(), safetensors_size(t, meta));
  Safetensors back = from_safetensors(bytes);
  expect_same(back.tensors, t);
  EXPECT_EQ(back.metadata, meta);

  save_safetensors(path("m.safetensors"), t, meta);
  back = load_safetensors(path("m.safetensors"));
  expect_same(back.tensors, t);
  EXPECT_EQ(back.metadata, meta);
}

TEST_F(SafetensorsTest, FeedsInPiecesOfAnySize) {
  const NamedTensors t = every_dtype();
  const std::string bytes = to_safetensors(t);
  for (size_t piece : {size_t{1}, size_t{3}, size_t{8}, size_t{13}, bytes.size()}) {
    SafetensorsDecoder d;
    for (size_t i = 0; i < bytes.size(); i += piece) d.feed(bytes.data() + i, std::min(piece, bytes.size() - i));
    expect_same(d.finish().tensors, t);
  }
}

TEST_F(SafetensorsTest, NonContiguousAndEmptyTensors) {
  const Tensor m = from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor mt = m.transpose(0, 1);  // a non-contiguous view
  const NamedTensors t{{"t", mt}, {"empty", zeros({0, 4})}, {"after", ones({2})}};
  const Safetensors back = from_safetensors(to_safetensors(t));
  ASSERT_EQ(back.tensors.size(), 3u);
  EXPECT_EQ(back.tensors[0].second.to_vector<double>(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(back.tensors[1].second.shape(), (Shape{0, 4}));
  EXPECT_EQ(back.tensors[2].second.to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST_F(SafetensorsTest, ExactLayout) {
  const NamedTensors t{{"b", from_vector(std::vector<int32_t>{1, 2})}, {"a", from_vector(std::vector<uint8_t>{9})}};
  const std::string bytes = to_safetensors(t, {{"k", "v"}});
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);  // padded so that the data is aligned
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_EQ(header["__metadata__"]["k"], "v");
  EXPECT_EQ(header["b"]["dtype"], "I32");
  EXPECT_EQ(header["b"]["shape"], nlohmann::json::array({2}));
  EXPECT_EQ(header["b"]["data_offsets"], nlohmann::json::array({0, 8}));
  EXPECT_EQ(header["a"]["dtype"], "U8");
  EXPECT_EQ(header["a"]["data_offsets"], nlohmann::json::array({8, 9}));
  ASSERT_EQ(bytes.size(), 8 + n + 9);
  const char want[] = {1, 0, 0, 0, 2, 0, 0, 0, 9};  // little-endian
  EXPECT_EQ(0, std::memcmp(bytes.data() + 8 + n, want, 9));
  // Read back in file order, whatever the header's key order.
  const Safetensors back = from_safetensors(bytes);
  EXPECT_EQ(back.tensors[0].first, "b");
  EXPECT_EQ(back.tensors[1].first, "a");
}

TEST_F(SafetensorsTest, RejectsBadInput) {
  const std::string ok = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string eight(8, '\1');
  EXPECT_NO_THROW(from_safetensors(raw_file(ok, eight)));
  expect_error(std::string(5, '\0'), "truncated");
  expect_error(raw_file(ok, eight).substr(0, 20), "past the end");
  expect_error(raw_file(ok, eight, 1000), "past the end");
  expect_error(raw_file(ok, eight.substr(0, 5)), "input has 5 data bytes");
  expect_error(raw_file(ok, eight + "zz"), "input has 10 data bytes");
  expect_error(raw_file("{not json", ""), "not valid JSON");
  expect_error(raw_file("[1,2]", ""), "not an object");
  expect_error(raw_file(R"({"x":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", "1234"), "unsupported dtype \"F16\"");
  expect_error(raw_file(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight), "needs 12 bytes");
  expect_error(raw_file(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight), "end before they begin");
  expect_error(raw_file(R"({"x":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                        R"("y":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
                        eight),
               "overlap");
  expect_error(raw_file(R"({"x":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})", eight), "hole");
  expect_error(raw_file(R"({"x":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", "1234" + eight), "input has 12");
  expect_error(raw_file(R"({"x":{"dtype":"U8","shape":[-4],"data_offsets":[0,4]}})", "1234"), "non-negative");
  expect_error(raw_file(R"({"x":{"dtype":"U8","shape":[4]}})", "1234"), "data_offsets");
  expect_error(raw_file(R"({"x":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\1\2")), "byte 2");
  expect_error(raw_file(R"({"__metadata__":{"a":1}})", ""), "not a string");
  EXPECT_THROW(load_safetensors(path("missing.safetensors")), Error);
}

TEST_F(SafetensorsTest, RejectsBadTensorsOnWrite) {
  EXPECT_THROW(to_safetensors({{"a", ones({1})}, {"a", ones({1})}}), Error);  // duplicate name
  EXPECT_THROW(to_safetensors({{"__metadata__", ones({1})}}), Error);
  EXPECT_THROW(to_safetensors({{"u", Tensor()}}), Error);
}

// Writes with Strata, reads with Python's safetensors, and the other way round.
TEST_F(SafetensorsTest, PythonInterop) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not found";
  const fs::path script = fs::path(STRATA_TESTS_DIR) / "io/make_safetensors_fixture.py";
  save_safetensors(path("strata.safetensors"), every_dtype(), {{"who", "strata"}, {"quote", "it's \"q\"; é"}});
  const int rc = std::system(("python3 '" + script.string() + "' '" + dir_.string() + "'").c_str());
  ASSERT_NE(rc, -1);
  if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) GTEST_SKIP() << "Python safetensors/numpy unavailable";
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << "Python could not read Strata's file (see stderr)";
  const Safetensors theirs = load_safetensors(path("python.safetensors"));
  EXPECT_EQ(theirs.metadata.at("who"), "python");
  // Python's writer orders tensors its own way; compare by name.
  const NamedTensors want = every_dtype();
  ASSERT_EQ(theirs.tensors.size(), want.size());
  for (const auto& [name, t] : want) {
    // name = name: clang 14 (the sanitizer build) cannot capture a structured binding.
    auto it = std::find_if(theirs.tensors.begin(), theirs.tensors.end(), [&, name = name](const auto& p) { return p.first == name; });
    ASSERT_NE(it, theirs.tensors.end()) << name;
    expect_same(it->second, t, name);
  }
}

}  // namespace

namespace strata {
namespace {
TEST(SafetensorsFileTest, EmptyFileIsAnErrorNotAHang) {
  std::string path = ::testing::TempDir() + "strata_empty.safetensors";
  { std::ofstream(path, std::ios::binary); }
  EXPECT_THROW(io::load_safetensors(path), Error);
  std::remove(path.c_str());
}
}  // namespace
}  // namespace strata
