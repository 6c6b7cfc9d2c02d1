// The .weights reader and writer: fixtures/small.cfg with small.weights gives the outputs of
// tests/vision/make_darknet_fixtures.py's independent PyTorch model; files round-trip; a file
// of the wrong length is refused; the model saves whole and loads back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"
#include "strata/core/factory.hpp"
#include "strata/io/npz.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/vision/darknet.hpp"

namespace strata {
namespace {

std::string darknet_weights_fixture(const std::string& name) {
  return std::string(STRATA_TESTS_DIR) + "/vision/fixtures/" + name;
}

Tensor darknet_weights_array(const io::NamedTensors& arrays, const std::string& name) {
  for (const auto& [n, t] : arrays)
    if (n == name) return t;
  throw Error("small.npz has no " + name);
}

double darknet_weights_max_difference(const Tensor& a, const Tensor& b) { return max(abs(a - b)).item<double>(); }

class DarknetWeights : public testing::TempDirTest {
 protected:
  vision::DarknetNetwork small() {
    auto net = vision::read_darknet_cfg(darknet_weights_fixture("small.cfg"));
    net.model->eval();
    return net;
  }
};

TEST_F(DarknetWeights, SmallNetworkGivesThePyTorchReferenceOutputs) {
  auto net = small();
  vision::load_darknet_weights(net, darknet_weights_fixture("small.weights"));
  const io::NamedTensors arrays = io::load_npz(darknet_weights_fixture("small.npz"));
  const auto outputs = net.model->run({darknet_weights_array(arrays, "input")});
  ASSERT_EQ(outputs.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const Tensor expected = darknet_weights_array(arrays, "out" + std::to_string(k));
    ASSERT_EQ(outputs[k].shape(), expected.shape());
    EXPECT_LT(darknet_weights_max_difference(outputs[k], expected), 1e-4) << "head " << k;
  }
}

TEST_F(DarknetWeights, SavedWeightsLoadBackIdentical) {
  auto net = small();
  vision::load_darknet_weights(net, darknet_weights_fixture("small.weights"));
  vision::save_darknet_weights(net, path("again.weights"));
  // The fixture is version 0.1 (32-bit `seen`), Strata writes 0.2 (64-bit): 4 bytes more.
  EXPECT_EQ(std::filesystem::file_size(path("again.weights")),
            std::filesystem::file_size(darknet_weights_fixture("small.weights")) + 4);
  auto fresh = small();  // freshly initialised: differs until loaded
  vision::load_darknet_weights(fresh, path("again.weights"));
  const auto a = net.model->named_weights(), b = fresh.model->named_weights();
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].first, b[k].first);
    EXPECT_EQ(darknet_weights_max_difference(a[k].second, b[k].second), 0.0) << a[k].first;
  }
}

TEST_F(DarknetWeights, AFileOfTheWrongLengthIsRefused) {
  auto net = small();
  const std::string fixture = darknet_weights_fixture("small.weights");
  const auto size = std::filesystem::file_size(fixture);
  const std::string needed = std::to_string((size - 16) / 4);
  std::filesystem::copy_file(fixture, path("long.weights"));
  std::ofstream(path("long.weights"), std::ios::app | std::ios::binary).write("\0\0\0\0", 4);
  testing::expect_error([&] { vision::load_darknet_weights(net, path("long.weights")); },
                        {"long.weights", "should hold " + needed + " floats", "it holds " + std::to_string((size - 12) / 4)});
  std::filesystem::copy_file(fixture, path("short.weights"));
  std::filesystem::resize_file(path("short.weights"), size - 6);
  testing::expect_error([&] { vision::load_darknet_weights(net, path("short.weights")); },
                        {"should hold " + needed + " floats", "and a part"});
  std::filesystem::resize_file(path("short.weights"), 7);
  testing::expect_error([&] { vision::load_darknet_weights(net, path("short.weights")); }, {"shorter than the 12-byte header"});
  testing::expect_error([&] { vision::load_darknet_weights(net, path("missing.weights")); }, {"cannot open"});
}

TEST_F(DarknetWeights, ModelSavedWholeLoadsBackWithTheSameOutputs) {
  auto net = small();
  vision::load_darknet_weights(net, darknet_weights_fixture("small.weights"));
  net.model->save(path("small.safetensors"));
  auto loaded = nn::Model::load(path("small.safetensors"));
  loaded->eval();
  const Tensor x = rand({2, 32, 32, 3});
  const auto expected = net.model->run({x}), got = loaded->run({x});
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(darknet_weights_max_difference(got[k], expected[k]), 0.0);
}

}  // namespace
}  // namespace strata
