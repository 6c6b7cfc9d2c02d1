// `strata hub export --onnx NAME[:V] FILE`: a static model saved to a hub comes out as an ONNX
// file that onnxruntime runs to the model's outputs; a dynamic model's version is refused.
#include <gtest/gtest.h>

#include <strata/lifecycle/hub_models.hpp>
#include <strata/strata.hpp>

#include "../../examples/fashion_mnist_cnn_net.hpp"
#include "onnx/onnx_runtime.hpp"

using namespace strata;

namespace {

int run_cli(const std::string& args, const std::filesystem::path& out) {
  const std::string cmd = std::string("'") + STRATA_CLI_PATH + "' " + args + " >'" + out.string() + "' 2>&1";
  return std::system(cmd.c_str());
}

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST(OnnxCli, HubExportOnnxRunsInOnnxRuntime) {
  if (strata::testing::onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  const auto dir = strata::testing::onnx_temp_dir("cli");
  const std::string db = (dir / "hub.db").string();
  nn::Model net = fashion_mnist_cnn_static();
  {
    auto hub = hub::Hub::open(db);
    lifecycle::save_model(hub, "cnn", net);
  }
  const auto file = dir / "cnn.onnx";
  ASSERT_EQ(run_cli("hub export --onnx cnn:1 '" + file.string() + "' --hub '" + db + "'", dir / "out.txt"), 0)
      << read(dir / "out.txt");
  EXPECT_NE(read(dir / "out.txt").find("exported cnn:1 as ONNX (opset 17)"), std::string::npos) << read(dir / "out.txt");
  net.eval();
  Generator gen(5);
  const Tensor x = randn({2, 28, 28, 1}, {}, &gen);
  const auto got = strata::testing::onnxruntime_outputs(file, {x});
  ASSERT_EQ(got.size(), 1u);
  strata::testing::expect_close(got[0], net.run({x})[0], "strata hub export --onnx");
  std::filesystem::remove_all(dir);
}

TEST(OnnxCli, HubExportOnnxRefusesADynamicModel) {
  const auto dir = strata::testing::onnx_temp_dir("cli_dynamic");
  const std::string db = (dir / "hub.db").string();
  {
    auto hub = hub::Hub::open(db);
    nn::Dense layer(3, {}, "plain");
    layer(zeros({1, 4}));
    lifecycle::save_model(hub, "plain", layer);
  }
  EXPECT_NE(run_cli("hub export --onnx plain '" + (dir / "p.onnx").string() + "' --hub '" + db + "'", dir / "out.txt"), 0);
  EXPECT_NE(read(dir / "out.txt").find("plain"), std::string::npos) << read(dir / "out.txt");
  EXPECT_FALSE(std::filesystem::exists(dir / "p.onnx"));
  std::filesystem::remove_all(dir);
}
