// VOC folders (strata/vision/voc.hpp): a folder written here read back, and hostile XML refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "strata/strata.hpp"
#include "strata/vision/voc.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace strata::vision {
namespace voc_test {

std::string voc_test_xml(const std::string& objects) {
  return "<?xml version=\"1.0\"?>\n<!-- a VOC file -->\n<annotation><folder>VOC2007</folder><filename>a.jpg</filename>"
         "<size><width>40</width><height>30</height><depth>3</depth></size>" + objects + "</annotation>\n";
}

std::string voc_test_object(const std::string& name, int x1, int y1, int x2, int y2, int difficult = 0) {
  return "<object><name>" + name + "</name><pose>Left</pose><difficult>" + std::to_string(difficult) +
         "</difficult><bndbox><xmin>" + std::to_string(x1) + "</xmin><ymin>" + std::to_string(y1) + "</ymin><xmax>" +
         std::to_string(x2) + "</xmax><ymax>" + std::to_string(y2) + "</ymax></bndbox></object>";
}

TEST(VocAnnotation, ParsesObjectsInPixelEdges) {
  const auto objects = parse_voc_annotation(voc_test_xml(voc_test_object("dog", 1, 2, 10, 20) + voc_test_object("c&amp;t", 5, 5, 6, 6, 1)));
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].name, "dog");
  EXPECT_DOUBLE_EQ(objects[0].box.x1, 0);  // VOC's pixel 1 starts at edge 0
  EXPECT_DOUBLE_EQ(objects[0].box.y1, 1);
  EXPECT_DOUBLE_EQ(objects[0].box.x2, 10);
  EXPECT_EQ(objects[1].name, "c&t");
  EXPECT_TRUE(objects[1].difficult);
}

TEST(VocAnnotation, RefusesHostileXml) {
  // The billion laughs: refused at its DOCTYPE, nothing expanded.
  testing::expect_error([] { parse_voc_annotation("<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">]><annotation/>", "a.xml"); },
                        {"a.xml", "DOCTYPE", "refused"});
  testing::expect_error([] { parse_voc_annotation("<annotation><object><name>&lol;</name></object></annotation>", "b.xml"); },
                        {"b.xml", "unknown entity &lol;"});
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  testing::expect_error([&] { parse_voc_annotation(deep, "c.xml"); }, {"c.xml", "nested deeper than 64"});
  testing::expect_error([] { parse_voc_annotation(voc_test_xml(voc_test_object("dog", 9, 2, 3, 20)), "d.xml"); }, {"d.xml", "xmin > xmax"});
  testing::expect_error([] { parse_voc_annotation("<annotation><object><name>x</name><bndbox><xmin>nan</xmin></bndbox></object></annotation>", "e.xml"); },
                        {"e.xml", "<xmin>", "expected a number"});
  testing::expect_error([] { parse_voc_annotation("<annotation><object>", "f.xml"); }, {"f.xml", "no closing"});
  testing::expect_error([] { parse_voc_annotation("<annotation></object>", "g.xml"); }, {"g.xml", "</object> closes <annotation>"});
}

class VocFolderTest : public testing::TempDirTest {};

TEST_F(VocFolderTest, ReadsImagesBoxesAndClasses) {
  std::filesystem::create_directories(path("voc/Annotations"));
  std::filesystem::create_directories(path("voc/JPEGImages"));
  std::ofstream(path("voc/Annotations/000002.xml")) << voc_test_xml(voc_test_object("person", 3, 4, 30, 25) + voc_test_object("dog", 1, 1, 5, 5, 1));
  std::ofstream(path("voc/Annotations/000001.xml")) << voc_test_xml(voc_test_object("dog", 2, 2, 8, 9));
  for (const char* id : {"000001", "000002"}) data::write_image(path("voc/JPEGImages/") + id + ".jpg", full({30, 40, 3}, 128, kUInt8));
  const VocFolder folder = voc_folder(path("voc"), {.skip_difficult = true});
  EXPECT_EQ(folder.classes, voc_classes());
  EXPECT_EQ(folder.ids, (std::vector<std::string>{"000001", "000002"}));
  const data::Example second = folder.dataset.get(1);
  EXPECT_EQ(second[0].shape(), (Shape{30, 40, 3}));
  EXPECT_EQ(second[2].to_vector<int64_t>(), (std::vector<int64_t>{14}));  // person; the difficult dog left out
  EXPECT_EQ(second[1].to_vector<float>(), (std::vector<float>{2, 3, 30, 25}));
  // Names outside VOC's: the names found, sorted; or refused when the classes are given.
  std::ofstream(path("voc/Annotations/000003.xml")) << voc_test_xml(voc_test_object("unicorn", 1, 1, 2, 2));
  data::write_image(path("voc/JPEGImages/000003.jpg"), full({30, 40, 3}, 128, kUInt8));
  EXPECT_EQ(voc_folder(path("voc")).classes, (std::vector<std::string>{"dog", "person", "unicorn"}));
  testing::expect_error([&] { voc_folder(path("voc"), {.classes = {"dog", "person"}}); }, {"000003.xml", "class 'unicorn'"});
  std::filesystem::remove(path("voc/JPEGImages/000001.jpg"));
  testing::expect_error([&] { voc_folder(path("voc")); }, {"000001.xml", "its image", "missing"});
  testing::expect_error([&] { voc_folder(path("nothing")); }, {"voc_folder", "Annotations"});
}

}  // namespace voc_test
}  // namespace strata::vision
