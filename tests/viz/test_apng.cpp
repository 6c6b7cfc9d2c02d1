// APNG: the chunks are the specification's (signature, IHDR, acTL before the image data, fcTL and
// fdAT numbered in one sequence from 0, CRC-32 on every chunk), each frame's image data decodes
// back to that frame, a still-PNG reader sees the first frame, and Pillow (an independent APNG
// reader, from the tests' venv) plays the frames back.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "serve/test_venv.hpp"
#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/viz/apng.hpp"

namespace strata::viz {
namespace {

struct ApngTestChunk {
  std::string type;
  std::vector<uint8_t> data;
};

uint32_t apng_test_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Walks the chunks after the signature, checking each CRC.
std::vector<ApngTestChunk> apng_test_chunks(const std::vector<uint8_t>& png) {
  std::vector<ApngTestChunk> chunks;
  size_t pos = 8;
  while (pos < png.size()) {
    EXPECT_LE(pos + 12, png.size());
    const uint32_t length = apng_test_u32(&png[pos]);
    EXPECT_LE(pos + 12 + length, png.size());
    ApngTestChunk c{std::string(png.begin() + pos + 4, png.begin() + pos + 8),
                    std::vector<uint8_t>(png.begin() + pos + 8, png.begin() + pos + 8 + length)};
    const uint32_t crc = static_cast<uint32_t>(crc32(0, &png[pos + 4], length + 4));
    EXPECT_EQ(apng_test_u32(&png[pos + 8 + length]), crc) << c.type;
    chunks.push_back(std::move(c));
    pos += 12 + length;
  }
  return chunks;
}

void apng_test_put(std::vector<uint8_t>& out, const std::string& type, const std::vector<uint8_t>& data) {
  const uint32_t n = static_cast<uint32_t>(data.size());
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(n >> s));
  const size_t from = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data.begin(), data.end());
  const uint32_t crc = static_cast<uint32_t>(crc32(0, &out[from], static_cast<uInt>(out.size() - from)));
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(crc >> s));
}

// Three 5 x 7 RGB frames of different content.
std::vector<Tensor> apng_test_frames() {
  std::vector<Tensor> frames;
  for (int f = 0; f < 3; ++f) {
    std::vector<uint8_t> px(5 * 7 * 3);
    for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i * 37 + f * 91) % 256);
    frames.push_back(from_vector(px, {5, 7, 3}));
  }
  return frames;
}

TEST(Apng, ChunksFollowTheSpecificationAndEachFrameDecodesBack) {
  const std::vector<Tensor> frames = apng_test_frames();
  const std::vector<uint8_t> apng = encode_apng(frames, {.delay_ms = 40, .plays = 2});
  const std::vector<ApngTestChunk> chunks = apng_test_chunks(apng);
  ASSERT_GE(chunks.size(), 4u);
  EXPECT_EQ(chunks.front().type, "IHDR");
  EXPECT_EQ(chunks.back().type, "IEND");
  uint32_t expected_sequence = 0;
  bool seen_actl = false;
  std::vector<std::vector<uint8_t>> frame_data;
  for (const ApngTestChunk& c : chunks) {
    if (c.type == "acTL") {
      EXPECT_TRUE(frame_data.empty()) << "acTL after image data";
      EXPECT_EQ(apng_test_u32(&c.data[0]), 3u);
      EXPECT_EQ(apng_test_u32(&c.data[4]), 2u);
      seen_actl = true;
    } else if (c.type == "fcTL") {
      ASSERT_EQ(c.data.size(), 26u);
      EXPECT_EQ(apng_test_u32(&c.data[0]), expected_sequence++);
      EXPECT_EQ(apng_test_u32(&c.data[4]), 7u);   // width
      EXPECT_EQ(apng_test_u32(&c.data[8]), 5u);   // height
      EXPECT_EQ((c.data[20] << 8) | c.data[21], 40);    // delay 40 / 1000 s
      EXPECT_EQ((c.data[22] << 8) | c.data[23], 1000);
    } else if (c.type == "IDAT") {
      frame_data.push_back(c.data);
    } else if (c.type == "fdAT") {
      EXPECT_EQ(apng_test_u32(&c.data[0]), expected_sequence++);
      frame_data.emplace_back(c.data.begin() + 4, c.data.end());
    }
  }
  EXPECT_TRUE(seen_actl);
  EXPECT_EQ(expected_sequence, 5u);  // 3 fcTL + 2 fdAT
  ASSERT_EQ(frame_data.size(), 3u);
  // Each frame's data under the animation's IHDR is a still PNG of that frame.
  for (size_t f = 0; f < 3; ++f) {
    std::vector<uint8_t> still(apng.begin(), apng.begin() + 8);
    apng_test_put(still, "IHDR", chunks.front().data);
    apng_test_put(still, "IDAT", frame_data[f]);
    apng_test_put(still, "IEND", {});
    EXPECT_EQ(data::decode_image(still).to_vector<uint8_t>(), frames[f].to_vector<uint8_t>()) << "frame " << f;
  }
  // A reader that knows only still PNGs sees frame 0.
  EXPECT_EQ(data::decode_image(apng).to_vector<uint8_t>(), frames[0].to_vector<uint8_t>());
}

TEST(Apng, PillowPlaysTheFramesBack) {
  const std::string python = strata::testing::test_venv_python("PIL", "pillow");
  if (python.empty()) GTEST_SKIP() << "no Pillow in ~/.cache/strata-test-venv (pip offline)";
  const auto path = std::filesystem::temp_directory_path() / ("strata_apng_test_" + std::to_string(::getpid()) + ".png");
  const std::vector<Tensor> frames = apng_test_frames();
  write_apng(path.string(), frames);
  // Pillow prints the frame count, the size and each frame's RGB bytes summed.
  const std::string cmd = "'" + python + "' -c \"import sys; from PIL import Image; im = Image.open(sys.argv[1]); "
                          "print(im.format, im.n_frames, im.size[0], im.size[1], "
                          "*[sum(im.seek(i) or im.convert('RGB').tobytes()) for i in range(im.n_frames)])\" '" +
                          path.string() + "'";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[512] = {};
  const size_t got = fread(buf, 1, sizeof buf - 1, pipe);
  pclose(pipe);
  std::filesystem::remove(path);
  std::string expected = "PNG 3 7 5";
  for (const Tensor& f : frames) {
    int64_t sum = 0;
    for (uint8_t v : f.to_vector<uint8_t>()) sum += v;
    expected += " " + std::to_string(sum);
  }
  EXPECT_EQ(std::string(buf, got), expected + "\n");
}

TEST(Apng, BadFramesAndOptionsAreErrors) {
  using strata::testing::expect_error;
  std::vector<Tensor> frames = apng_test_frames();
  expect_error([] { encode_apng({}); }, {"encode_apng", "1 to", "got 0"});
  expect_error([&] { encode_apng(frames, {.delay_ms = 0}); }, {"delay_ms", "got 0"});
  expect_error([&] { encode_apng(frames, {.delay_ms = 70000}); }, {"delay_ms"});
  expect_error([&] { encode_apng(frames, {.plays = -1}); }, {"plays"});
  frames.push_back(zeros({5, 6, 3}, kUInt8));
  expect_error([&] { encode_apng(frames); }, {"frame 3", "[5, 6, 3]"});
  expect_error([] { encode_apng({zeros({5, 6, 3})}); }, {"encode_png"});
}

}  // namespace
}  // namespace strata::viz
