// The obj_box_coord_* conversions and the darknet annotation parser against TensorLayer 2.2.5's
// output (fixtures/tl_prepro_boxes.npz, from make_tl_prepro_fixtures.py).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

std::vector<vision::BoxCoord> prepro_boxes_rows(const std::string& name) {
  const Tensor& t = testing::tl_prepro_fixture("boxes").at(name);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.size(1), 4);
  const std::vector<double> v = t.to_vector<double>();
  std::vector<vision::BoxCoord> rows(v.size() / 4);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = {v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
  return rows;
}

// Bit-for-bit but for the last place: the same operations in the same order as TensorLayer's.
void prepro_boxes_expect(const vision::BoxCoord& got, const vision::BoxCoord& want, const std::string& what) {
  for (int k = 0; k < 4; ++k) {
    if (std::isinf(want[k]))
      EXPECT_EQ(got[k], want[k]) << what << " [" << k << "]";
    else
      EXPECT_NEAR(got[k], want[k], 1e-12 * (1 + std::abs(want[k]))) << what << " [" << k << "]";
  }
}

TEST(TlPreproBoxes, ConversionsMatchTensorLayer) {
  const auto coords = prepro_boxes_rows("coords"), fractions = prepro_boxes_rows("fractions");
  const auto shape = testing::tl_prepro_fixture("boxes").at("shape").to_vector<int64_t>();
  const int64_t h = shape[0], w = shape[1];
  const auto all = vision::obj_box_coords_rescale(coords, h, w);
  const auto want_all = prepro_boxes_rows("coords_rescale");
  ASSERT_EQ(all.size(), want_all.size());
  struct Case {
    std::string name;
    std::function<vision::BoxCoord(const vision::BoxCoord&)> fn;
    const std::vector<vision::BoxCoord>* inputs;
  };
  const std::vector<Case> cases = {
      {"coord_rescale", [&](const auto& c) { return vision::obj_box_coord_rescale(c, h, w); }, &coords},
      {"scale_to_pixelunit", [&](const auto& c) { return vision::obj_box_coord_scale_to_pixelunit(c, h, w); },
       &fractions},
      {"centroid_to_upleft_butright",
       [](const auto& c) { return vision::obj_box_coord_centroid_to_upleft_butright(c); }, &coords},
      {"centroid_to_upleft_butright_int",
       [](const auto& c) { return vision::obj_box_coord_centroid_to_upleft_butright(c, true); }, &coords},
      {"upleft_butright_to_centroid",
       [](const auto& c) { return vision::obj_box_coord_upleft_butright_to_centroid(c); }, &coords},
      {"centroid_to_upleft", [](const auto& c) { return vision::obj_box_coord_centroid_to_upleft(c); }, &coords},
      {"upleft_to_centroid", [](const auto& c) { return vision::obj_box_coord_upleft_to_centroid(c); }, &coords},
  };
  for (size_t i = 0; i < coords.size(); ++i) prepro_boxes_expect(all[i], want_all[i], "coords_rescale");
  for (const Case& c : cases) {
    const auto want = prepro_boxes_rows(c.name);
    ASSERT_EQ(want.size(), c.inputs->size()) << c.name;
    for (size_t i = 0; i < want.size(); ++i)
      prepro_boxes_expect(c.fn((*c.inputs)[i]), want[i], c.name + " box " + std::to_string(i));
  }
}

TEST(TlPreproBoxes, ConversionsRoundTrip) {
  for (const auto& c : prepro_boxes_rows("coords")) {
    prepro_boxes_expect(
        vision::obj_box_coord_upleft_butright_to_centroid(vision::obj_box_coord_centroid_to_upleft_butright(c)), c,
        "corners round trip");
    prepro_boxes_expect(vision::obj_box_coord_upleft_to_centroid(vision::obj_box_coord_centroid_to_upleft(c)), c,
                        "upleft round trip");
  }
}

TEST(TlPreproBoxes, BadImageSizeIsAnError) {
  testing::expect_error(
      [] {
        vision::obj_box_coord_rescale({1, 2, 3, 4}, 0, 10);
      },
      {"obj_box_coord_rescale", "0 x 10"});
  testing::expect_error(
      [] {
        vision::obj_box_coord_scale_to_pixelunit({1, 2, 3, 4}, 5, -1);
      },
      {"obj_box_coord_scale_to_pixelunit", "5 x -1"});
}

TEST(TlPreproBoxes, DarknetTextParsesAsTensorLayerDoes) {
  const std::vector<uint8_t> bytes = testing::tl_prepro_fixture("boxes").at("darknet_text").to_vector<uint8_t>();
  const auto parsed = vision::parse_darknet_annotations(std::string(bytes.begin(), bytes.end()));
  EXPECT_EQ(parsed.classes, testing::tl_prepro_fixture("boxes").at("darknet_classes").to_vector<int64_t>());
  const auto want = prepro_boxes_rows("darknet_boxes");
  ASSERT_EQ(parsed.boxes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    prepro_boxes_expect(parsed.boxes[i], want[i], "darknet box " + std::to_string(i));
}

TEST(TlPreproBoxes, DarknetBadFieldsNameTheLine) {
  testing::expect_error([] { vision::parse_darknet_annotations("0 0.5 0.5 0.1 0.1\n1.5 0.5 0.5 0.1 0.1"); },
                        {"line 2", "integer class", "1.5"});
  testing::expect_error([] { vision::parse_darknet_annotations("\n\n2 0.5 x 0.1 0.1"); }, {"line 3", "field 3", "'x'"});
  testing::expect_error([] { vision::parse_darknet_annotations("99999999999999999999 0 0 0 0"); }, {"line 1", "class"});
  testing::expect_error([] { vision::parse_darknet_annotations("1 ++1 0 0 0"); }, {"field 2"});
  EXPECT_TRUE(vision::parse_darknet_annotations("").classes.empty());
  // A NUL byte is part of a field, as in Python's split(); float() refuses it (field 3: the
  // class is field 1).
  testing::expect_error([] { vision::parse_darknet_annotations(std::string("1 2 3\0 4 5", 11)); },
                        {"field 3", "line 1"});
}

}  // namespace
}  // namespace strata
