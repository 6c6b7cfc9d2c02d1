// Writing VOC folders (strata/vision/voc_export.hpp): what write_voc_example writes, voc_folder
// reads back (boxes exactly, names escaped and unescaped, difficult flags), image-set lists round
// trip, and bad ids, images and boxes are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "strata/strata.hpp"
#include "strata/vision/voc_export.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace strata::vision {
namespace {

class VocExportTest : public testing::TempDirTest {};

TEST_F(VocExportTest, AWrittenFolderReadsBackTheSameBoxesNamesAndImages) {
  // One colour per channel: JPEG keeps flat colours within a step or two (noise it would not).
  const Tensor image = cast(full({24, 32, 1}, 1.0) * tensor({200.0f, 100.0f, 50.0f}), kUInt8);
  write_voc_example(path("voc"), "a_1", image,
                    {{{0, 0, 32, 24}, "cat & <dog>", false}, {{3.5, 4, 10.25, 7}, "o'brien \"x\"", true}});
  write_voc_example(path("voc"), "b_2", full({10, 12, 3}, 7, kUInt8), {});
  const VocFolder folder = voc_folder(path("voc"));
  EXPECT_EQ(folder.ids, (std::vector<std::string>{"a_1", "b_2"}));
  EXPECT_EQ(folder.classes, (std::vector<std::string>{"cat & <dog>", "o'brien \"x\""}));
  const data::Example a = folder.dataset.get(0);
  EXPECT_EQ(a[1].to_vector<float>(), (std::vector<float>{0, 0, 32, 24, 3.5f, 4, 10.25f, 7}));
  EXPECT_EQ(a[2].to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(a[0].shape(), image.shape());
  EXPECT_LE(max(abs(cast(a[0], kFloat32) - cast(image, kFloat32))).item<double>(), 3.0);
  EXPECT_EQ(voc_folder(path("voc"), {.skip_difficult = true}).dataset.get(0)[2].numel(), 1);
  EXPECT_EQ(folder.dataset.get(1)[2].numel(), 0);
}

TEST_F(VocExportTest, ImageSetsRoundTripAndMissingOnesAreEmpty) {
  write_voc_image_set(path("voc"), "train", {"a_1", "b_2"});
  EXPECT_EQ(read_voc_image_set(path("voc"), "train"), (std::vector<std::string>{"a_1", "b_2"}));
  EXPECT_TRUE(read_voc_image_set(path("voc"), "test").empty());
  // VOC's per-class lists: "id  1" and "id -1" lines.
  std::ofstream(path("voc/ImageSets/Main/dog_train.txt")) << "000005  1\r\n000007 -1\n\n";
  EXPECT_EQ(read_voc_image_set(path("voc"), "dog_train"), (std::vector<std::string>{"000005", "000007"}));
  std::ofstream(path("voc/ImageSets/Main/bad.txt")) << "../../etc/passwd\n";
  testing::expect_error([&] { read_voc_image_set(path("voc"), "bad"); }, {"bad.txt", "file name stem"});
  testing::expect_error([&] { read_voc_image_set(path("voc"), "../x"); }, {"set '../x'"});
}

TEST_F(VocExportTest, BadIdsImagesAndBoxesAreRefused) {
  const Tensor image = full({10, 12, 3}, 7, kUInt8);
  testing::expect_error([&] { write_voc_example(path("voc"), "../up", image, {}); }, {"id '../up'"});
  testing::expect_error(
      [&] {
        write_voc_example(path("voc"), "f", full({10, 12, 3}, 0.5), {});
      },
      {"f", "uint8 [H, W, 3]"});
  testing::expect_error(
      [&] {
        write_voc_example(path("voc"), "g", image, {{{0, 0, 13, 5}, "x", false}});
      },
      {"g", "not inside the 12x10 image"});
  testing::expect_error(
      [&] {
        write_voc_example(path("voc"), "h", image, {{{0, 0, 1, 1}, "", false}});
      },
      {"h", "without a class name"});
  EXPECT_FALSE(std::filesystem::exists(path("voc/Annotations/g.xml")));
}

}  // namespace
}  // namespace strata::vision
