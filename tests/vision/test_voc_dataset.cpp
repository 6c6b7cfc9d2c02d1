// TensorLayer's load_voc_dataset form (vision/voc_dataset.hpp) on a small VOC tree written at
// test time: the file lists sorted by their numbers, the class tables, and the Darknet lines.
// The expected lines were computed by Python 3 from TensorLayer's documented formula
// (x = (xmin + xmax) / 2 * (1 / width), ..., written with str()), e.g.
//   python3 -c 'dw = 1. / 486; print((174 + 349) / 2.0 * dw)'  ->  0.5380658436213992
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "strata/vision/voc_dataset.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace strata {
namespace {

using VocDatasetTest = testing::TempDirTest;

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

std::string voc_object(const std::string& name, const std::string& box, const std::string& extra = "") {
  return "<object><name>" + name + "</name>" + extra + "<bndbox>" + box + "</bndbox></object>";
}

std::string voc_box(int xmin, int ymin, int xmax, int ymax) {
  return "<xmin>" + std::to_string(xmin) + "</xmin><ymin>" + std::to_string(ymin) + "</ymin><xmax>" +
         std::to_string(xmax) + "</xmax><ymax>" + std::to_string(ymax) + "</ymax>";
}

std::string voc_xml(int width, int height, const std::string& objects) {
  return "<annotation><folder>VOC</folder><size><width>" + std::to_string(width) + "</width><height>" +
         std::to_string(height) + "</height><depth>3</depth></size>" + objects + "</annotation>";
}

// VOC/<folder>: four annotated images (one id shorter, so that its number sorts it first though
// its name sorts it second), a person with parts, a difficult cat, an unknown class, an object
// named "head"; one segmentation map of each kind; `extra_image` without an annotation.
void write_voc_tree(const std::filesystem::path& root, bool segmentation) {
  const std::string person_parts = "<part><name>head</name><bndbox>" + voc_box(169, 104, 209, 146) +
                                   "</bndbox></part>" + "<part><name>hand</name><bndbox>" +
                                   voc_box(278, 210, 297, 233) + "</bndbox></part>" +
                                   "<part><name>foot</name><bndbox>" + voc_box(273, 333, 297, 354) + "</bndbox></part>";
  const std::pair<std::string, std::string> files[] = {
      {"2007_000027",
       voc_xml(486, 500, voc_object("person", voc_box(174, 101, 349, 351), "<difficult>0</difficult>" + person_parts))},
      {"2007_000123", voc_xml(500, 375,
                              voc_object("dog", voc_box(48, 240, 195, 371), "<difficult>0</difficult>") +
                                  voc_object("cat", voc_box(8, 12, 352, 498), "<difficult>1</difficult>") +
                                  voc_object("unicorn", voc_box(1, 1, 2, 2)))},
      {"2008_000002", voc_xml(500, 375,
                              voc_object("car", "<xmin>34.5</xmin><ymin>11</ymin><xmax>448</xmax><ymax>293</ymax>") +
                                  voc_object("head", voc_box(1, 2, 3, 4)))},
      {"2007_00003", voc_xml(3, 7, voc_object("bird", voc_box(0, 0, 3, 7)))},
  };
  for (const auto& [id, xml] : files) {
    write_text(root / "Annotations" / (id + ".xml"), xml);
    write_text(root / "JPEGImages" / (id + ".jpg"), "");
  }
  write_text(root / "JPEGImages" / "2009_000001.jpg", "");
  write_text(root / "JPEGImages" / "readme.txt", "");
  if (segmentation) {
    write_text(root / "SegmentationClass" / "2007_000027.png", "");
    write_text(root / "SegmentationObject" / "2007_000027.png", "");
  }
}

const std::string kBird = "2 0.5 0.5 1.0 1.0\n";
const std::string kPerson = "14 0.5380658436213992 0.452 0.360082304526749 0.5\n";
const std::string kPersonParts =
    "20 0.3888888888888889 0.25 0.08230452674897121 0.084\n"
    "21 0.5915637860082305 0.443 0.03909465020576132 0.046\n"
    "22 0.5864197530864198 0.687 0.04938271604938272 0.042\n";
const std::string kDog = "11 0.243 0.8146666666666667 0.294 0.34933333333333333\n";
const std::string kCat = "7 0.36 0.6799999999999999 0.6880000000000001 1.296\n";
const std::string kCar = "6 0.4825 0.4053333333333333 0.8270000000000001 0.752\n";
const std::string kHead = "20 0.004 0.008 0.004 0.005333333333333333\n";

TEST_F(VocDatasetTest, ListsClassesAndDarknetLinesAsTensorLayer) {
  const std::filesystem::path root = dir_ / "VOC" / "VOC2012";
  write_voc_tree(root, true);
  const vision::VocDataset voc = vision::load_voc_dataset(dir_.string(), "2012");
  const std::string images = (root / "JPEGImages").string() + "/", ann = (root / "Annotations").string() + "/";
  EXPECT_EQ(voc.images,
            (std::vector<std::string>{images + "2007_00003.jpg", images + "2007_000027.jpg", images + "2007_000123.jpg",
                                      images + "2008_000002.jpg", images + "2009_000001.jpg"}));
  EXPECT_EQ(voc.annotations, (std::vector<std::string>{ann + "2007_00003.xml", ann + "2007_000027.xml",
                                                       ann + "2007_000123.xml", ann + "2008_000002.xml"}));
  EXPECT_EQ(voc.semantic_maps, std::vector<std::string>{(root / "SegmentationClass" / "2007_000027.png").string()});
  EXPECT_EQ(voc.instance_maps, std::vector<std::string>{(root / "SegmentationObject" / "2007_000027.png").string()});
  ASSERT_EQ(voc.classes.size(), 20u);
  EXPECT_EQ(voc.classes[14], "person");
  EXPECT_TRUE(voc.classes_in_person.empty());
  EXPECT_EQ(voc.classes_dict.at("tvmonitor"), 19);
  EXPECT_EQ(voc.n_objs, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(voc.objs_info, (std::vector<std::string>{kBird, kPerson, kDog, kCar}));

  const vision::VocDataset parts = vision::load_voc_dataset(dir_.string(), "2012", true);
  EXPECT_EQ(parts.classes_in_person, (std::vector<std::string>{"head", "hand", "foot"}));
  EXPECT_EQ(parts.classes_dict.at("foot"), 22);
  EXPECT_EQ(parts.n_objs, (std::vector<int64_t>{1, 4, 1, 2}));
  EXPECT_EQ(parts.objs_info, (std::vector<std::string>{kBird, kPerson + kPersonParts, kDog, kCar + kHead}));
}

// The 2012 test set keeps difficult objects and only the images that have an annotation.
TEST_F(VocDatasetTest, TestSetsKeepDifficultObjects) {
  const std::filesystem::path root = dir_ / "VOC" / "VOC2012test";
  write_voc_tree(root, false);
  const vision::VocDataset voc = vision::load_voc_dataset(dir_.string(), "2012test");
  EXPECT_EQ(voc.images.size(), 4u);
  EXPECT_EQ(voc.n_objs, (std::vector<int64_t>{1, 1, 2, 1}));
  EXPECT_EQ(voc.objs_info[2], kDog + kCat);
  EXPECT_TRUE(voc.semantic_maps.empty());
  write_voc_tree(dir_ / "VOC" / "VOC2007", false);  // no segmentation folders: empty lists
  const vision::VocDataset v2007 = vision::load_voc_dataset(dir_.string(), "2007");
  EXPECT_TRUE(v2007.semantic_maps.empty() && v2007.instance_maps.empty());
  EXPECT_EQ(v2007.objs_info[2], kDog);
}

TEST_F(VocDatasetTest, ErrorsNameTheFolderOrFile) {
  testing::expect_error([&] { vision::load_voc_dataset(dir_.string(), "2010"); }, {"2012, 2007", "'2010'"});
  testing::expect_error([&] { vision::load_voc_dataset(dir_.string()); }, {"VOC2012", "is not a folder"});
  const std::filesystem::path root = dir_ / "VOC" / "VOC2012";
  write_voc_tree(root, false);
  write_text(root / "Annotations" / "2010_000001.xml", "<!DOCTYPE a [<!ENTITY b \"c\">]><annotation/>");
  testing::expect_error([&] { vision::load_voc_dataset(dir_.string()); }, {"2010_000001.xml", "DOCTYPE"});
  std::filesystem::remove(root / "Annotations" / "2010_000001.xml");
  write_text(root / "Annotations" / "2010_000002.xml", "<annotation><object><name>dog</name></object></annotation>");
  testing::expect_error([&] { vision::load_voc_dataset(dir_.string()); }, {"2010_000002.xml", "<size>"});
  std::filesystem::remove(root / "Annotations" / "2010_000002.xml");
  write_text(root / "JPEGImages" / "cover.jpg", "");
  testing::expect_error([&] { vision::load_voc_dataset(dir_.string()); }, {"cover.jpg", "2007_000027"});
}

TEST(PythonFloatStr, WritesWhatPythonsStrWrites) {
  const std::pair<double, const char*> cases[] = {{0.0, "0.0"},     {1.0, "1.0"},
                                                  {0.1, "0.1"},     {1e-5, "1e-05"},
                                                  {1e-4, "0.0001"}, {123456789012345.6, "123456789012345.6"},
                                                  {1e16, "1e+16"},  {1.5e16, "1.5e+16"},
                                                  {-2.5, "-2.5"},   {1.0 / 3, "0.3333333333333333"},
                                                  {2e-7, "2e-07"},  {100.0, "100.0"}};
  for (const auto& [value, text] : cases) EXPECT_EQ(vision::python_float_str(value), text) << value;
}

}  // namespace
}  // namespace strata
