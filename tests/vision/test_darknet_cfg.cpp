// The .cfg reader: the published YOLOv4 and YOLOv4-tiny build at their own size and at others,
// with darknet's output shapes and parameter counts, and bad cfgs are refused naming the line.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/vision/darknet.hpp"

namespace strata {
namespace {

std::string darknet_cfg_fixture(const std::string& name) { return std::string(STRATA_TESTS_DIR) + "/vision/fixtures/" + name; }

// Parameter counts from tests/vision/make_darknet_fixtures.py's own reading of the cfgs.
int64_t darknet_cfg_expected_count(const std::string& key) {
  std::ifstream in(darknet_cfg_fixture("parameters.json"));
  const nlohmann::json counts = nlohmann::json::parse(in);
  return counts.at(key).get<int64_t>();
}

// The outputs' shapes from a batch of two on `device` (meta: shapes only, no arithmetic):
// [N, grid, grid, 3 * (5 + classes)].
void darknet_cfg_expect_heads(const vision::DarknetNetwork& net, const std::vector<int64_t>& grids, int64_t classes,
                              const std::vector<int64_t>& strides, Device device = kCPU) {
  ASSERT_EQ(net.heads.size(), grids.size());
  ASSERT_EQ(net.model->num_outputs(), grids.size());
  net.model->eval();
  const auto outputs = net.model->run({zeros({2, net.height, net.width, net.channels}, device)});
  for (size_t k = 0; k < grids.size(); ++k) {
    EXPECT_EQ(outputs[k].shape(), Shape({2, grids[k], grids[k], 3 * (5 + classes)})) << "head " << k;
    EXPECT_EQ(net.heads[k].classes, classes);
    EXPECT_EQ(net.heads[k].stride, strides[k]);
    EXPECT_EQ(net.heads[k].anchors.size(), 3u);
  }
}

TEST(DarknetCfg, YoloV4TinyBuildsAtItsPublishedSizeAndAtASmallOne) {
  auto net = vision::read_darknet_cfg(darknet_cfg_fixture("yolov4-tiny.cfg"));
  EXPECT_EQ(net.width, 416);
  EXPECT_EQ(net.channels, 3);
  darknet_cfg_expect_heads(net, {13, 26}, 80, {32, 16});
  // mask = 3,4,5 of the six anchors for the coarse head, 1,2,3 for the fine one, as published.
  EXPECT_EQ(net.heads[0].anchors[0], (std::pair<double, double>(81, 82)));
  EXPECT_EQ(net.heads[1].anchors[1], (std::pair<double, double>(37, 58)));
  EXPECT_DOUBLE_EQ(net.heads[0].scale_x_y, 1.05);
  EXPECT_DOUBLE_EQ(net.heads[0].iou_normalizer, 0.07);
  EXPECT_EQ(net.heads[0].nms_kind, "greedynms");
  EXPECT_EQ(net.model->count_params(), darknet_cfg_expected_count("yolov4-tiny@416"));
  // darknet's released yolov4-tiny.weights is 24,251,276 bytes: a 20-byte header and one float a parameter.
  EXPECT_EQ(net.model->count_params(), (24251276 - 20) / 4);

  auto small = vision::read_darknet_cfg(darknet_cfg_fixture("yolov4-tiny.cfg"), {.width = 128, .height = 128, .classes = 3});
  darknet_cfg_expect_heads(small, {4, 8}, 3, {32, 16});
  EXPECT_EQ(small.model->count_params(), darknet_cfg_expected_count("yolov4-tiny@128/3"));
}

TEST(DarknetCfg, YoloV4BuildsAtItsPublishedSizeAndAtASmallOne) {
  auto net = vision::read_darknet_cfg(darknet_cfg_fixture("yolov4.cfg"));
  EXPECT_EQ(net.width, 608);
  darknet_cfg_expect_heads(net, {76, 38, 19}, 80, {8, 16, 32}, kMeta);  // 60 GFLOPs not run
  EXPECT_DOUBLE_EQ(net.heads[0].scale_x_y, 1.2);
  EXPECT_DOUBLE_EQ(net.heads[0].iou_thresh, 0.213);
  EXPECT_EQ(net.model->count_params(), darknet_cfg_expected_count("yolov4@608"));
  // darknet's released yolov4.weights is 257,717,640 bytes: a 20-byte header and one float a parameter.
  EXPECT_EQ(net.model->count_params(), (257717640 - 20) / 4);
  net.model.reset();

  auto small = vision::read_darknet_cfg(darknet_cfg_fixture("yolov4.cfg"), {.width = 128, .height = 128, .classes = 3});
  darknet_cfg_expect_heads(small, {16, 8, 4}, 3, {8, 16, 32});
  EXPECT_EQ(small.model->count_params(), darknet_cfg_expected_count("yolov4@128/3"));
}

// A cfg of `body` after a small [net] and one convolution; the error must name `line`.
void darknet_cfg_expect_refused(const std::string& body, int line, const std::string& what) {
  const std::string text = "[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=8\nsize=3\npad=1\n" + body;
  testing::expect_error([&] { vision::parse_darknet_cfg(text); }, {"line " + std::to_string(line), what});
}

TEST(DarknetCfg, BadCfgsAreRefusedNamingTheLine) {
  darknet_cfg_expect_refused("[dropout]\nprobability=.5\n", 9, "unknown section [dropout]");
  darknet_cfg_expect_refused("[convolutional]\nfilters=8\ndilation=2\n", 11, "unknown key 'dilation'");
  darknet_cfg_expect_refused("[convolutional]\nfilters=eight\n", 10, "expected an integer");
  darknet_cfg_expect_refused("[convolutional]\nfilters=0\n", 10, "outside [1,");
  darknet_cfg_expect_refused("[convolutional]\nactivation=elu\n", 10, "'elu' is not one of");
  darknet_cfg_expect_refused("[route]\nlayers=-3\n", 10, "out of range");
  darknet_cfg_expect_refused("[route]\nlayers=4\n", 10, "out of range");
  darknet_cfg_expect_refused("[maxpool]\nsize=2\nstride=2\n[route]\nlayers=-1,-2\n", 13, "different sizes");
  darknet_cfg_expect_refused("[convolutional]\nfilters=6\n[shortcut]\nfrom=-2\n", 12, "gives");
  darknet_cfg_expect_refused("[route]\nlayers=-1\ngroups=3\n", 11, "must divide");
  darknet_cfg_expect_refused("[yolo]\nmask=0\nanchors=1,2\nnum=1\nclasses=2\n", 9, "need 7");
  darknet_cfg_expect_refused("[yolo]\nmask=0\nanchors=1,2,3\nnum=1\n", 11, "needs 2 values");
  darknet_cfg_expect_refused("[convolutional]\nfilters=8\nfilters=9\n", 11, "repeats line 10");
  darknet_cfg_expect_refused("stride\n", 9, "expected key=value");
  darknet_cfg_expect_refused("[maxpool]\nsize=2\nstride=2\n[convolutional]\nsize=31\n", 13, "does not fit");
  testing::expect_error([] { vision::parse_darknet_cfg("width=3\n[net]\n"); }, {"line 1", "before the first section"});
  testing::expect_error([] { vision::parse_darknet_cfg("[convolutional]\n"); }, {"first section must be [net]"});
  testing::expect_error([] { vision::parse_darknet_cfg("[net]\nwidth=0\n[convolutional]\n"); }, {"line 2", "outside"});
  testing::expect_error(
      [] {
        vision::parse_darknet_cfg("[net]\n[convolutional]\nfilters=16384\nsize=31\n",
                                  {.max_parameters = 1000000});
      },
      {"line 2", "max_parameters"});
}

TEST(DarknetCfg, ClassesRewriteOnlyTheConvolutionsBeforeYoloLayers) {
  auto net = vision::read_darknet_cfg(darknet_cfg_fixture("small.cfg"), {.classes = 7});
  net.model->eval();
  const auto outputs = net.model->run({zeros({1, 32, 32, 3})});
  EXPECT_EQ(outputs[0].shape(), Shape({1, 8, 8, 36}));
  EXPECT_EQ(outputs[1].shape(), Shape({1, 16, 16, 36}));
  // Every other layer keeps its filters: the rewritten heads add (36 - 21) * (8 + 1) weights each.
  EXPECT_EQ(net.model->count_params(), darknet_cfg_expected_count("small") + 2 * 15 * 9);
  auto wide = vision::read_darknet_cfg(darknet_cfg_fixture("small.cfg"), {.width = 64, .height = 96});
  wide.model->eval();
  EXPECT_EQ(wide.model->run({zeros({1, 96, 64, 3})})[1].shape(), Shape({1, 48, 32, 21}));
  EXPECT_EQ(wide.heads[1].stride, 2);
}

}  // namespace
}  // namespace strata
