// ModelNet and ShapeNet-Part folders, built small in a temporary folder: files listed by split
// and class, examples of the asked size, the same example for the same (seed, index), and bad
// folders refused.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "strata/points/datasets.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace folder_datasets_test {

using namespace strata;
using strata::testing::expect_error;

class PointCloudFolders : public strata::testing::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
};

// A unit square at height z, as ModelNet's quirky header writes it.
std::string square_off(int z) {
  return "OFF4 1 0\n0 0 " + std::to_string(z) + "\n1 0 " + std::to_string(z) + "\n1 1 " + std::to_string(z) +
         "\n0 1 " + std::to_string(z) + "\n4 0 1 2 3\n";
}

TEST_F(PointCloudFolders, ModelNetListsClassesAndSamplesEachMeshSurface) {
  write("chair/train/chair_0001.off", square_off(1));
  write("chair/train/chair_0002.off", square_off(2));
  write("airplane/train/airplane_0001.off", square_off(3));
  write("airplane/test/airplane_0002.off", square_off(4));
  write("bed/test/bed_0001.off", square_off(5));  // a class with no training file keeps its label
  write("chair/train/notes.txt", "not a mesh");
  const points::ModelNetFolder train = points::modelnet_folder(dir_.string(), "train", 64, 9);
  EXPECT_EQ(train.classes, (std::vector<std::string>{"airplane", "bed", "chair"}));
  EXPECT_EQ(train.labels, (std::vector<int64_t>{0, 2, 2}));
  const data::Dataset ds = train.dataset();
  ASSERT_EQ(ds.size(), 3);
  const data::Example second = ds.get(1);
  EXPECT_EQ(second[0].shape(), Shape({64, 3}));
  EXPECT_EQ(second[1].item<int64_t>(), 2);
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(second[0].select(0, i).to_vector<float>()[2], 1);  // chair_0001's plane
  EXPECT_EQ(ds.get(1)[0].to_vector<float>(), second[0].to_vector<float>());
  EXPECT_NE(ds.get(2)[0].to_vector<float>()[0], second[0].to_vector<float>()[0]);
  EXPECT_EQ(points::modelnet_folder(dir_.string(), "test", 8).labels, (std::vector<int64_t>{0, 1}));
  expect_error([&] { points::modelnet_folder(dir_.string(), "val", 8); }, {"'val'", "'train' or 'test'"});
  expect_error([&] { points::modelnet_folder((dir_ / "chair/train").string(), "train", 8); }, {"no <class>/train/*.off"});
}

TEST_F(PointCloudFolders, ModelNetNamesTheFileThatCannotBeRead) {
  write("cup/train/broken.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n");
  const data::Dataset ds = points::modelnet_folder(dir_.string(), "train", 8).dataset();
  expect_error([&] { ds.get(0); }, {"broken.off", "refers to vertex 9"});
}

TEST_F(PointCloudFolders, ShapeNetPartKeepsEachPointsPartAndTheCategory) {
  write("synsetoffset2category.txt", "Mug\t03797390\nAirplane\t02691156\n");
  // Each point's part is its x, so the test can see that points and parts stay together.
  std::string five;
  for (int i = 0; i < 5; ++i) five += std::to_string(i) + " 0.5 0.25 0 0 1 " + std::to_string(i) + "\n";
  write("03797390/m1.txt", five);
  write("02691156/a1.txt", five + "7 1 1 0 0 1 7\n");
  write("train_test_split/shuffled_train_file_list.json",
        R"(["shape_data/03797390/m1", "shape_data/02691156/a1"])");
  write("train_test_split/shuffled_test_file_list.json", R"(["shape_data/03797390/../../etc"])");
  const points::ShapeNetPartFolder train = points::shapenet_part_folder(dir_.string(), "train", 8, 3);
  EXPECT_EQ(train.categories, (std::vector<std::string>{"Airplane", "Mug"}));
  EXPECT_EQ(train.labels, (std::vector<int64_t>{1, 0}));
  const data::Dataset ds = train.dataset();
  for (int64_t k = 0; k < 2; ++k) {
    const data::Example ex = ds.get(k);
    ASSERT_EQ(ex[0].shape(), Shape({8, 3}));
    ASSERT_EQ(ex[1].shape(), Shape({8}));
    EXPECT_EQ(ex[1].dtype(), kInt64);
    EXPECT_EQ(ex[2].item<int64_t>(), train.labels[k]);
    const std::vector<float> xyz = ex[0].to_vector<float>();
    const std::vector<int64_t> parts = ex[1].to_vector<int64_t>();
    std::set<int64_t> seen(parts.begin(), parts.end());
    EXPECT_EQ(seen.size(), k == 0 ? 5u : 6u);  // every point of a smaller file is kept
    for (int i = 0; i < 8; ++i) EXPECT_EQ(xyz[i * 3], static_cast<float>(parts[i]));
  }
  EXPECT_EQ(ds.get(1)[0].to_vector<float>(), ds.get(1)[0].to_vector<float>());
  expect_error([&] { points::shapenet_part_folder(dir_.string(), "test", 8); }, {"../../etc", "is not 'shape_data/"});
  expect_error([&] { points::shapenet_part_folder(dir_.string(), "val", 8); }, {"shuffled_val_file_list.json"});
}

}  // namespace folder_datasets_test
