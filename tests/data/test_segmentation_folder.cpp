// The segmentation folder reader (strata/data/segmentation_folder.hpp): a tiny folder of PNG
// images and masks written here reads back as pairs; missing, extra, mis-sized, out-of-range,
// colour and corrupt files are refused with the file's name.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/data/segmentation_folder.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

class SegmentationFolderTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    std::filesystem::create_directories(path("images"));
    std::filesystem::create_directories(path("masks"));
  }
  // A gray h x w image (all 100) and its mask: class `id` with id + 1 in the first pixel.
  void write_pair(const std::string& name, int64_t h, int64_t w, uint8_t id) {
    data::write_image(path("images/" + name + ".png"), full({h, w, 1}, 100, kUInt8));
    write_mask(name, h, w, id);
  }
  void write_mask(const std::string& name, int64_t h, int64_t w, uint8_t id) {
    std::vector<uint8_t> ids(h * w, id);
    ids[0] = static_cast<uint8_t>(id + 1);
    data::write_image(path("masks/" + name + ".png"), from_vector(ids, Shape{h, w, 1}));
  }
  data::Dataset read(int64_t classes = 3) const {
    return data::segmentation_folder(path("images"), path("masks"), {.classes = classes}).dataset();
  }
};

TEST_F(SegmentationFolderTest, PairsImagesAndMasksByName) {
  write_pair("b", 4, 6, 1);
  write_pair("a", 4, 6, 0);
  data::write_image(path("images/c.jpg"), full({4, 6, 1}, 200, kUInt8));  // a JPEG image, a PNG mask
  write_mask("c", 4, 6, 1);
  const auto folder = data::segmentation_folder(path("images"), path("masks"), {.classes = 3});
  ASSERT_EQ(folder.images.size(), 3u);
  EXPECT_EQ(std::filesystem::path(folder.images[0]).filename(), "a.png");
  EXPECT_EQ(std::filesystem::path(folder.masks[2]).filename(), "c.png");
  const data::Example b = folder.dataset().get(1);
  EXPECT_EQ(b[0].shape(), Shape({4, 6, 1}));
  EXPECT_EQ(b[0].dtype(), kFloat32);
  EXPECT_NEAR(b[0].to(kFloat64).to_vector<double>()[5], 100.0 / 255, 1e-6);
  EXPECT_EQ(b[1].shape(), Shape({4, 6}));
  EXPECT_EQ(b[1].dtype(), kInt64);
  const std::vector<int64_t> ids = b[1].to_vector<int64_t>();
  EXPECT_EQ(ids[0], 2);
  EXPECT_EQ(ids[23], 1);
}

TEST_F(SegmentationFolderTest, RefusesUnpairedAndDuplicateFiles) {
  write_pair("a", 4, 4, 0);
  data::write_image(path("images/b.png"), full({4, 4, 1}, 1, kUInt8));
  testing::expect_error([&] { read(); }, {"images/b.png", "no mask", "b.png"});
  write_mask("b", 4, 4, 0);
  write_mask("z", 4, 4, 0);
  testing::expect_error([&] { read(); }, {"masks/z.png", "no image", "z"});
  std::filesystem::remove(path("masks/z.png"));
  data::write_image(path("images/a.jpg"), full({4, 4, 1}, 1, kUInt8));
  testing::expect_error([&] { read(); }, {"two images named a"});
  std::filesystem::remove(path("images/a.jpg"));
  testing::expect_error([&] { data::segmentation_folder(path("images"), path("nowhere")); }, {"nowhere", "not a directory"});
  testing::expect_error([&] { read(1); }, {"classes must be in [2, 256]", "1"});
}

TEST_F(SegmentationFolderTest, RefusesBadMasksWhenRead) {
  write_pair("a", 4, 4, 0);
  write_pair("b", 4, 4, 2);  // ids 2 and 3
  write_pair("c", 4, 4, 0);
  write_mask("c", 5, 4, 0);
  data::write_image(path("images/d.png"), full({4, 4, 1}, 1, kUInt8));
  data::write_image(path("masks/d.png"), full({4, 4, 3}, 1, kUInt8));
  data::write_image(path("images/e.png"), full({4, 4, 1}, 1, kUInt8));
  std::ofstream(path("masks/e.png")) << "\x89PNG not really";
  const data::Dataset set = read(3);
  EXPECT_NO_THROW(set.get(0));
  testing::expect_error([&] { set.get(1); }, {"masks/b.png", "class id 3", "pixel (0, 0)", "below 3"});
  testing::expect_error([&] { set.get(2); }, {"masks/c.png", "4 x 5", "images/c.png", "4 x 4"});
  testing::expect_error([&] { set.get(3); }, {"masks/d.png", "single-channel", "3 channels"});
  testing::expect_error([&] { set.get(4); }, {"masks/e.png"});
  // A size asked for: every image must have it.
  const data::Dataset sized =
      data::segmentation_folder(path("images"), path("masks"), {.classes = 4, .height = 4, .width = 8}).dataset();
  testing::expect_error([&] { sized.get(0); }, {"images/a.png", "4 x 4", "expected 8 x 4"});
}

}  // namespace
}  // namespace strata
