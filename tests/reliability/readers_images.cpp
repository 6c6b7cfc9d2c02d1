// Issue 13.7: images. A JPEG cut inside its data is an error naming the file (libjpeg would fill
// the rest with gray); an image whose header declares more than limits().max_image_pixels is
// refused from the header, before anything is decoded or allocated.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "readers_fixture.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"

namespace strata::testing {
namespace {

using ReadersImages = ReadersTest;

Tensor pattern_image(int64_t height, int64_t width) {
  std::vector<uint8_t> pixels;
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x)
      for (int64_t c = 0; c < 3; ++c) pixels.push_back(static_cast<uint8_t>((x * 7 + y * 13 + c * 50) % 256));
  return from_vector(pixels, {height, width, 3});
}

std::string as_string(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

void put_u16_be(std::string& s, size_t at, uint16_t v) {
  s[at] = static_cast<char>(v >> 8);
  s[at + 1] = static_cast<char>(v & 0xff);
}

TEST_F(ReadersImages, JpegCutInsideItsDataIsAnErrorNamingTheFile) {
  const std::string whole = as_string(data::encode_jpeg(pattern_image(64, 64)));
  EXPECT_EQ(data::read_image(write("whole.jpg", whole)).size(0), 64);
  const std::string file = write("cut.jpg", whole.substr(0, whole.size() / 2));
  expect_error([&] { data::read_image(file); }, {file, "corrupt JPEG", "Premature end"});
}

TEST_F(ReadersImages, JpegDeclaringTooManyPixelsIsRefusedFromItsHeader) {
  std::string jpeg = as_string(data::encode_jpeg(pattern_image(8, 8)));
  const size_t sof = jpeg.find("\xFF\xC0");  // baseline frame: length, precision, height, width
  ASSERT_NE(sof, std::string::npos);
  put_u16_be(jpeg, sof + 5, 20000);
  put_u16_be(jpeg, sof + 7, 20000);
  const std::string file = write("huge.jpg", jpeg);
  expect_limit_error([&] { data::read_image(file); }, "max_image_pixels", file);
}

uint32_t crc32(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
  return be32(static_cast<uint32_t>(data.size())) + type + data + be32(crc32(type + data));
}

TEST_F(ReadersImages, PngDeclaringTooManyPixelsIsRefusedFromItsHeader) {
  // 10^6 x 10^6 RGBA, 8 bits: 4 TB decoded, from a few dozen bytes.
  const std::string ihdr = be32(1'000'000) + be32(1'000'000) + std::string("\x08\x06\x00\x00\x00", 5);
  const std::string idat("\x78\x9c\x03\x00\x00\x00\x00\x01", 8);  // an empty zlib stream
  const std::string png =
      std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + png_chunk("IDAT", idat) + png_chunk("IEND", "");
  const std::string file = write("huge.png", png);
  expect_limit_error([&] { data::read_image(file); }, "max_image_pixels", file);
}

TEST_F(ReadersImages, ImagesWithinALoweredPixelLimitStillDecode) {
  const std::string file = write("small.png", as_string(data::encode_png(pattern_image(10, 20))));
  limits().max_image_pixels = 200;
  EXPECT_EQ(data::read_image(file).size(1), 20);
  limits().max_image_pixels = 199;
  expect_limit_error([&] { data::read_image(file); }, "max_image_pixels", file);
}

}  // namespace
}  // namespace strata::testing
