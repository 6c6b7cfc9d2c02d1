// PNG and JPEG decoding checked against PNG bytes written by an independent encoder
// (make_png_fixture.py, Python's zlib), channel conversions, encode/decode round trips, and
// image folders built in a temporary directory, including corrupt files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/data/image_folder.hpp"
#include "support/temp_dir.hpp"

using namespace strata;
using namespace strata::data;
using strata::testing::expect_error;

namespace {

// From make_png_fixture.py.
const std::vector<uint8_t> kRgbPng = {137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0, 18, 22, 241, 77, 0, 0, 0, 29, 73, 68, 65, 84, 120, 156, 99, 224, 98, 56, 33, 103, 116, 194, 40, 229, 4, 67, 30, 195, 170, 38, 163, 85, 211, 82, 86, 1, 0, 64, 16, 7, 99, 230, 173, 240, 72, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130};
const std::vector<uint8_t> kGrayAlphaPng = {137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 2, 0, 0, 0, 1, 8, 4, 0, 0, 0, 94, 43, 183, 1, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 96, 255, 255, 171, 1, 0, 5, 146, 2, 129, 83, 48, 201, 195, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130};

std::vector<int64_t> values(const Tensor& t) { return t.to(kInt64).to_vector<int64_t>(); }

// A smooth RGB (or gray) test image, so that JPEG loses little.
Tensor gradient(int64_t h, int64_t w, int64_t c) {
  std::vector<uint8_t> v;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = 0; k < c; ++k) v.push_back(static_cast<uint8_t>(40 + 6 * y + 4 * x + 30 * k));
  return from_vector(v, {h, w, c});
}


void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

TEST(ImageCodec, DecodesPngFromAnIndependentEncoder) {
  Tensor rgb = decode_image(kRgbPng);
  ASSERT_EQ(rgb.shape(), Shape({2, 3, 3}));
  ASSERT_EQ(rgb.dtype(), kUInt8);
  std::vector<int64_t> expected;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int v : {10 + 100 * y + 20 * x, 50 * x, 200 - 30 * y}) expected.push_back(v);
  EXPECT_EQ(values(rgb), expected);

  Tensor ga = decode_image(kGrayAlphaPng);
  ASSERT_EQ(ga.shape(), Shape({1, 2, 2}));
  EXPECT_EQ(values(ga), (std::vector<int64_t>{7, 255, 250, 128}));
}

TEST(ImageCodec, ConvertsChannels) {
  // Gray = round(0.299 r + 0.587 g + 0.114 b): pixel (0, 0) is (10, 0, 200) -> 25.8.
  Tensor gray = decode_image(kRgbPng, 1);
  ASSERT_EQ(gray.shape(), Shape({2, 3, 1}));
  EXPECT_EQ(values(gray)[0], 26);
  EXPECT_EQ(values(gray)[5], (299 * 150 + 587 * 100 + 114 * 170 + 500) / 1000);
  Tensor rgba = decode_image(kRgbPng, 4);
  EXPECT_EQ(values(rgba.select(2, 3)), std::vector<int64_t>(6, 255));
  EXPECT_EQ(max_abs_diff(rgba.narrow(2, 0, 3), decode_image(kRgbPng)), 0);
  // Gray + alpha to RGB copies the gray level and drops alpha; to RGBA keeps alpha.
  EXPECT_EQ(values(decode_image(kGrayAlphaPng, 3)), (std::vector<int64_t>{7, 7, 7, 250, 250, 250}));
  EXPECT_EQ(values(decode_image(kGrayAlphaPng, 4)), (std::vector<int64_t>{7, 7, 7, 255, 250, 250, 250, 128}));
}

TEST(ImageCodec, PngRoundTripsEveryChannelCount) {
  for (int64_t c = 1; c <= 4; ++c) {
    Tensor img = gradient(5, 7, c);
    EXPECT_EQ(max_abs_diff(decode_image(encode_png(img)), img), 0) << c << " channels";
  }
  // Non-contiguous input is encoded as it looks.
  Tensor t = gradient(4, 6, 3).transpose(0, 1);
  EXPECT_EQ(max_abs_diff(decode_image(encode_png(t)), t), 0);
}

TEST(ImageCodec, JpegRoundTripIsClose) {
  for (int64_t c : {1, 3}) {
    Tensor img = gradient(16, 16, c);
    Tensor back = decode_image(encode_jpeg(img, 95));
    ASSERT_EQ(back.shape(), img.shape());
    EXPECT_LE(max_abs_diff(back, img), 6) << c << " channels";
  }
  expect_error([] { encode_jpeg(gradient(2, 2, 4)); }, {"encode_jpeg", "1 or 3 channels", "4"});
}

TEST(ImageCodec, CorruptBytesGiveErrorsNamingTheSource) {
  std::vector<uint8_t> truncated(kRgbPng.begin(), kRgbPng.begin() + 40);
  expect_error([&] { decode_image(truncated, 0, "cat.png"); }, {"cat.png", "PNG"});
  std::vector<uint8_t> jpeg = encode_jpeg(gradient(8, 8, 3));
  jpeg.resize(jpeg.size() / 3);
  expect_error([&] { decode_image(jpeg, 0, "dog.jpg"); }, {"dog.jpg", "JPEG"});
  expect_error([] { decode_image(std::vector<uint8_t>{1, 2, 3}, 0, "x.bin"); }, {"x.bin", "not a PNG or JPEG"});
  expect_error([] { decode_image(kRgbPng, 2 + 3); }, {"channels", "5"});
  expect_error([] { read_image("/nonexistent/a.png"); }, {"/nonexistent/a.png"});
}

class ImageFolderTest : public strata::testing::TempDirTest {};

TEST_F(ImageFolderTest, ListsClassesAndDecodesImages) {
  std::filesystem::create_directories(path("root/cat"));
  std::filesystem::create_directories(path("root/ant"));
  std::filesystem::create_directories(path("root/empty"));
  write_image(path("root/cat/b.png"), gradient(4, 5, 3));
  write_image(path("root/cat/a.JPG"), gradient(4, 5, 3));
  write_image(path("root/ant/z.png"), gradient(4, 5, 1));
  write_bytes(path("root/ant/notes.txt"), {'h', 'i'});

  ImageFolder folder = image_folder(path("root"), {.channels = 3});
  EXPECT_EQ(folder.classes, (std::vector<std::string>{"ant", "cat", "empty"}));
  ASSERT_EQ(folder.paths.size(), 3u);
  EXPECT_EQ(folder.paths[1], path("root/cat/a.JPG"));
  EXPECT_EQ(folder.labels, (std::vector<int64_t>{0, 1, 1}));

  Dataset ds = folder.dataset();
  ASSERT_EQ(ds.size(), 3);
  Example ant = ds.get(0);
  ASSERT_EQ(ant[0].shape(), Shape({4, 5, 3}));
  EXPECT_EQ(max_abs_diff(ant[0].select(2, 2), gradient(4, 5, 1).select(2, 0)), 0);  // gray spread to RGB
  EXPECT_EQ(ds.get(2)[1].item<int64_t>(), 1);
  Example batch = *ds.batch(3).open().next();
  EXPECT_EQ(batch[0].shape(), Shape({3, 4, 5, 3}));
  EXPECT_EQ(values(batch[1]), (std::vector<int64_t>{0, 1, 1}));
}

TEST_F(ImageFolderTest, ErrorsNameTheFile) {
  std::filesystem::create_directories(path("root/a"));
  write_image(path("root/a/good.png"), gradient(2, 2, 1));
  write_bytes(path("root/a/bad.png"), {0x89, 'P', 'N', 'G', 1, 2});
  Dataset ds = image_folder(path("root")).dataset();
  expect_error([&] { ds.get(0); }, {path("root/a/bad.png"), "not a PNG or JPEG"});
  EXPECT_EQ(ds.get(1)[0].shape(), Shape({2, 2, 1}));
  expect_error([&] { image_folder(path("missing")); }, {path("missing"), "not a directory"});
  std::filesystem::create_directories(path("empty/a"));
  expect_error([&] { image_folder(path("empty")); }, {path("empty"), "no images"});
}

TEST_F(ImageFolderTest, FlatFolderListsImagesWithoutLabels) {
  std::filesystem::create_directories(path("faces/more/deeper"));
  std::filesystem::create_directories(path("faces/.thumbs"));
  write_image(path("faces/b.png"), gradient(3, 4, 3));
  write_image(path("faces/a.jpg"), gradient(3, 4, 3));
  write_image(path("faces/more/c.png"), gradient(3, 4, 1));
  write_image(path("faces/more/deeper/d.PNG"), gradient(3, 4, 3));
  write_image(path("faces/.thumbs/x.png"), gradient(3, 4, 3));
  write_image(path("faces/.hidden.png"), gradient(3, 4, 3));
  write_bytes(path("faces/list.txt"), {'a'});

  ImageFiles flat = image_files(path("faces"));
  EXPECT_EQ(flat.paths, (std::vector<std::string>{path("faces/a.jpg"), path("faces/b.png")}));
  Dataset ds = flat.dataset();
  ASSERT_EQ(ds.size(), 2);
  Example b = ds.get(1);
  ASSERT_EQ(b.size(), 1u);  // an image, no label
  EXPECT_EQ(max_abs_diff(b[0], gradient(3, 4, 3)), 0);

  ImageFiles all = image_files(path("faces"), {.channels = 3}, true);
  EXPECT_EQ(all.paths, (std::vector<std::string>{path("faces/a.jpg"), path("faces/b.png"), path("faces/more/c.png"),
                                                 path("faces/more/deeper/d.PNG")}));
  Example batch = *all.dataset().batch(4).open().next();
  EXPECT_EQ(batch[0].shape(), Shape({4, 3, 4, 3}));  // the gray file spread to RGB
}

TEST_F(ImageFolderTest, FlatFolderErrors) {
  std::filesystem::create_directories(path("only_dirs/sub"));
  write_image(path("only_dirs/sub/a.png"), gradient(2, 2, 1));
  expect_error([&] { image_files(path("only_dirs")); }, {"image_files", path("only_dirs"), "no images", ".png"});
  expect_error([&] { image_files(path("nowhere")); }, {"image_files", path("nowhere"), "not a directory"});
  expect_error([&] { image_files(path("only_dirs"), {.channels = 7}, true); }, {"image_files", "channels", "7"});
  write_bytes(path("only_dirs/broken.png"), {0x89, 'P', 'N', 'G', 1});
  Dataset ds = image_files(path("only_dirs")).dataset();
  expect_error([&] { ds.get(0); }, {path("only_dirs/broken.png"), "not a PNG or JPEG"});
}
