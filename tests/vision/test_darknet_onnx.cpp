// ONNX export of darknet networks: YOLOv4-tiny (route groups as Slice, upsampling as Resize) and
// fixtures/small.cfg (mish, swish, grouped convolution, darknet's padded pools) run by
// onnxruntime give Strata's outputs (tolerance 1e-4, relative above 1).
#include <gtest/gtest.h>

#include "onnx/onnx_runtime.hpp"
#include "strata/nn/layers/shape.hpp"
#include "strata/vision/darknet.hpp"

namespace strata {
namespace {

void darknet_onnx_check(nn::Model& model, const Tensor& x, const std::string& name) {
  if (testing::onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  model.eval();
  const auto dir = testing::onnx_temp_dir(name);
  const auto path = dir / (name + ".onnx");
  model.export_onnx(path.string());
  const std::vector<Tensor> expected = model.run({x});
  const std::vector<Tensor> got = testing::onnxruntime_outputs(path, {x});
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size(); ++k) testing::expect_close(got[k], expected[k], name + " output " + std::to_string(k));
  std::filesystem::remove_all(dir);
}

// Weights that exercise every term: batch-norm statistics away from 0 and 1.
void darknet_onnx_randomise(nn::Model& model) {
  NoGradGuard no_grad;
  Generator gen(45);
  for (auto& [name, w] : model.named_weights()) {
    const bool variance = name.find("moving_var") != std::string::npos;
    const bool scale = name.find("gamma") != std::string::npos;
    Tensor value = variance || scale ? rand(w.shape(), {}, &gen) + 0.5 : randn(w.shape(), {}, &gen) * 0.1;
    if (name.find("/W") != std::string::npos) value = randn(w.shape(), {}, &gen) * (1.0 / std::sqrt(double(w.numel() / w.size(3))));
    copy_(w, value);
  }
}

TEST(DarknetOnnx, YoloV4TinyExportsAndOnnxRuntimeAgrees) {
  auto net = vision::read_darknet_cfg(std::string(STRATA_TESTS_DIR) + "/vision/fixtures/yolov4-tiny.cfg",
                                      {.width = 96, .height = 96, .classes = 3});
  darknet_onnx_randomise(*net.model);
  darknet_onnx_check(*net.model, rand({2, 96, 96, 3}), "yolov4_tiny");
}

TEST(DarknetOnnx, SmallNetworkExportsAndOnnxRuntimeAgrees) {
  const std::string fixtures = std::string(STRATA_TESTS_DIR) + "/vision/fixtures/";
  auto net = vision::read_darknet_cfg(fixtures + "small.cfg");
  vision::load_darknet_weights(net, fixtures + "small.weights");
  darknet_onnx_check(*net.model, rand({2, 32, 32, 3}), "darknet_small");
}

// The two layers the darknet reader brought to the exporter, in the layouts darknet does not
// use: channels-last, bilinear, a spatial slice.
TEST(DarknetOnnx, SliceAndUpSamplingExportInEitherLayout) {
  auto x = nn::Input({-1, 5, 6, 4});
  auto h = nn::UpSampling2d({.scale = {2, 3}, .method = nn::ResizeMethod::bilinear})(x);
  h = nn::Slice({.axis = 2, .begin = 3, .end = 11})(h);
  auto n = nn::UpSampling2d({.scale = {3, 2}, .method = nn::ResizeMethod::nearest})(x);
  n = nn::Slice({.axis = -1, .begin = 1, .end = 3})(nn::Conv2d(6, {3, 3})(n));
  nn::Model model({x}, {h, n}, "resample");
  darknet_onnx_check(model, randn({2, 5, 6, 4}), "resample");
}

}  // namespace
}  // namespace strata
