// Whole models as exporters write them, each with a symbolic batch: the classic torchvision
// architectures, a Transformer encoder and an LSTM language model from PyTorch's exporter (torch
// 2.15.0, torchvision 0.29.2; TorchScript's at opset 17, and five of them again from dynamo's at
// opset 18), and Keras models from tf2onnx 1.16.1 (NHWC, int32 constants). The committed files
// (tests/onnx/fixtures/whole, made by make_whole_model_fixtures.py and make_keras_fixtures.py
// there) are the exporters' graphs with their weights stripped; tests/onnx/fill_weights.py gives
// the weights seeded values, then onnxruntime and Strata run the same file on the same batch of 2
// and agree within 1e-4 (relative). An imported model fine-tunes: its weights are trainable.
#include <gtest/gtest.h>

#include <strata/onnx/onnx.hpp>
#include <strata/optim/optim.hpp>
#include <strata/strata.hpp>

#include "onnx/onnx_runtime.hpp"
#include "support/expect_error.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

const std::string kWhole = std::string(STRATA_TESTS_DIR) + "/onnx/fixtures/whole/";

// The committed file `name` with its weights filled in, in a fresh folder (in memory where
// /dev/shm is: VGG's weights are half a gigabyte).
std::filesystem::path filled_model(const std::string& name) {
  const std::filesystem::path shm = "/dev/shm";
  std::filesystem::path dir = onnx_temp_dir("whole_" + name);
  if (std::filesystem::is_directory(shm)) {
    std::filesystem::remove_all(dir);
    dir = shm / dir.filename();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  const auto path = dir / (name + ".onnx");
  const std::string command = "'" + onnx_python() + "' '" + STRATA_TESTS_DIR + "/onnx/fill_weights.py' '" + kWhole +
                              name + ".onnx' '" + path.string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return path;
}

// Strata's and onnxruntime's outputs for the same file and batch agree. Files whose graphs compute
// shapes from the symbolic batch run at batches 2 and 3 and also save and load whole.
void check_model_file(const std::filesystem::path& path, const std::vector<Tensor>& batches, bool save_and_load) {
  auto model = onnx::load_onnx(path.string());
  NoGradGuard no_grad;
  const std::string name = path.stem().string();
  std::shared_ptr<nn::Model> loaded;  // the model saved whole and loaded back, once
  if (save_and_load) {
    model->save((path.parent_path() / "imported.safetensors").string());
    loaded = nn::Model::load((path.parent_path() / "imported.safetensors").string());
    loaded->eval();
  }
  for (const Tensor& x : batches) {
    const std::vector<Tensor> want = onnxruntime_outputs(path, {x});
    ASSERT_EQ(want.size(), 1u);
    const std::vector<Tensor> got = model->run({x});
    ASSERT_EQ(got.size(), 1u);
    expect_close(got[0], want[0], name + " at batch " + std::to_string(x.size(0)));
    if (loaded) expect_close(loaded->run({x})[0], want[0], name + " saved and loaded");
  }
}

void check_whole_model(const std::string& name, const std::vector<Tensor>& batches, bool save_and_load = false) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  const auto path = filled_model(name);
  struct Cleanup {  // the folder goes when a check fails too (VGG's is half a gigabyte of memory)
    std::filesystem::path dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{path.parent_path()};
  check_model_file(path, batches, save_and_load);
}

// Seeded inputs, a batch of `n`.
Tensor images(int64_t size, int64_t n = 2) {
  Generator gen(7 + n);
  return randn({n, 3, size, size}, {}, &gen);
}
Tensor nhwc_images(int64_t size, int64_t channels = 3) {
  Generator gen(7);
  return randn({2, size, size, channels}, {}, &gen);
}
Tensor sequences(int64_t n) {  // the Transformer's [n, 6, 32]
  Generator gen(7 + n);
  return randn({n, 6, 32}, {}, &gen);
}
Tensor tokens(int64_t n, DType dtype) {
  Generator gen(7 + n);
  return randint(0, 50, {n, 7}, dtype, &gen);
}

}  // namespace

// torchvision's classifiers (num_classes 10). AlexNet and VGG need 224 x 224: their adaptive
// pools (to 6 x 6 and 7 x 7) export only where the features divide into them.
TEST(OnnxWholeModels, AlexNet) { check_whole_model("alexnet", {images(224)}); }
TEST(OnnxWholeModels, SqueezeNet) { check_whole_model("squeezenet1_1", {images(64)}); }
TEST(OnnxWholeModels, Vgg) { check_whole_model("vgg11", {images(224)}); }
TEST(OnnxWholeModels, GoogLeNet) { check_whole_model("googlenet", {images(64)}); }
TEST(OnnxWholeModels, InceptionV3) { check_whole_model("inception_v3", {images(75)}); }
TEST(OnnxWholeModels, ResNet) { check_whole_model("resnet18", {images(64)}); }
TEST(OnnxWholeModels, DenseNet) { check_whole_model("densenet121", {images(64)}); }
// The channel shuffle reshapes to [N, 2, C/2, H, W] with N from Shape; chunk slices by Shape.
TEST(OnnxWholeModels, ShuffleNet) { check_whole_model("shufflenet_v2_x0_5", {images(64), images(64, 3)}, true); }
TEST(OnnxWholeModels, MobileNetV2) { check_whole_model("mobilenet_v2", {images(64)}); }
TEST(OnnxWholeModels, MobileNetV3) { check_whole_model("mobilenet_v3_small", {images(64)}); }

// nn.TransformerEncoder (2 layers, batch_first) over [N, 6, 32]: nn.MultiheadAttention moves the
// batch to axis 1 and reshapes it with the heads, [6, 4N, 8], its sizes from Shape.
TEST(OnnxWholeModels, TransformerEncoder) {
  check_whole_model("transformer_encoder", {sequences(2), sequences(3)}, true);
}

// Embedding, a 2-layer LSTM whose zero initial state is ConstantOfShape of [2, N, 32], Linear.
TEST(OnnxWholeModels, LstmLanguageModel) {
  check_whole_model("lstm_language_model", {tokens(2, kInt64), tokens(3, kInt64)}, true);
}

// Keras models converted by tf2onnx (make_keras_fixtures.py): NHWC inputs, Transposes around
// the convolutions, int64 and int32 constants, the batch symbolic ("unk__..."); softmax outputs.
TEST(OnnxWholeModels, KerasSmallCnn) { check_whole_model("keras_small_cnn", {nhwc_images(28, 1)}); }
TEST(OnnxWholeModels, KerasMobileNet) { check_whole_model("keras_mobilenet", {nhwc_images(64)}); }
TEST(OnnxWholeModels, KerasMobileNetV2) { check_whole_model("keras_mobilenet_v2", {nhwc_images(64)}); }
TEST(OnnxWholeModels, KerasResNet50) { check_whole_model("keras_resnet50", {nhwc_images(64)}); }
TEST(OnnxWholeModels, KerasDenseNet) { check_whole_model("keras_densenet121", {nhwc_images(64)}); }
TEST(OnnxWholeModels, KerasInceptionV3) { check_whole_model("keras_inception_v3", {nhwc_images(75)}); }
// Embedding, LSTM (its zero state Expand of [N, 24] computed in int32, unsqueezed), the last step.
TEST(OnnxWholeModels, KerasLstmClassifier) {
  check_whole_model("keras_lstm_classifier", {tokens(2, kInt32), tokens(3, kInt32)}, true);
}

// Shape arithmetic on the symbolic batch written with the onnx helper (make_batch_arithmetic.py):
// a reshape to [2N, 3] and back (N·2, then 2N / 2), a GRU's zero state Expand(0, [1, N, 4]) and a
// Resize to sizes [N, C, 8, 10] (F.interpolate's size) match onnxruntime at batches 2 and 3; what the import cannot
// keep as a + b·N is refused naming the node, never computed at the probe's batch of 1.
TEST(OnnxWholeModels, ShapeArithmeticOnTheSymbolicBatch) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  const auto dir = onnx_generated_files("make_batch_arithmetic.py", "batch_arithmetic");
  Generator gen(3);
  check_model_file(dir / "fold_to_rows.onnx", {randn({2, 6}, {}, &gen), randn({3, 6}, {}, &gen)}, true);
  check_model_file(dir / "zeros_state.onnx", {randn({2, 5, 3}, {}, &gen), randn({3, 5, 3}, {}, &gen)}, true);
  check_model_file(dir / "resize_sizes.onnx", {randn({2, 2, 4, 5}, {}, &gen), randn({3, 2, 4, 5}, {}, &gen)}, true);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"refuse_square", "N·N is not a shape the import keeps"},
      {"refuse_ones", "only zeros (one zero expanded) of a shape with the symbolic batch are supported"},
      {"refuse_odd_div", "divided by 2 is not a whole a + b·N"},
      {"refuse_resize_2n", "must be the batch N itself, on the first axis"},
      {"refuse_lost", "its shape is not known while importing"}};
  for (const auto& [file, message] : refused)
    expect_error([&] { onnx::load_onnx((dir / (file + ".onnx")).string()); }, {file + ".onnx", message});
  std::filesystem::remove_all(dir);
}

// The same PyTorch models from torch 2.15's default exporter (dynamo=True, opset 18): Reshapes with
// allowzero and -1 for the batch's sizes, ReduceMean over axes inputs, Split, Expand zero states.
TEST(OnnxWholeModels, DynamoResNet) { check_whole_model("dynamo_resnet18", {images(64)}); }
TEST(OnnxWholeModels, DynamoShuffleNet) {
  check_whole_model("dynamo_shufflenet_v2_x0_5", {images(64), images(64, 3)}, true);
}
TEST(OnnxWholeModels, DynamoMobileNetV3) { check_whole_model("dynamo_mobilenet_v3_small", {images(64)}); }
TEST(OnnxWholeModels, DynamoTransformerEncoder) {
  check_whole_model("dynamo_transformer_encoder", {sequences(2), sequences(3)}, true);
}
TEST(OnnxWholeModels, DynamoLstmLanguageModel) {
  check_whole_model("dynamo_lstm_language_model", {tokens(2, kInt64), tokens(3, kInt64)}, true);
}

// An imported model fine-tunes in Strata: torchvision's ResNet-18 (its batch norms folded into
// the convolutions by the exporter) takes Adam steps on one batch of 4 with labels: the loss
// falls and every weight of the file, each a trainable weight, moves.
TEST(OnnxWholeModels, ImportedResNetFineTunes) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  const auto path = filled_model("resnet18");
  auto model = onnx::load_onnx(path.string());
  std::filesystem::remove_all(path.parent_path());
  const std::vector<Tensor> weights = model->trainable_weights();
  ASSERT_EQ(weights.size(), 42u);  // 20 convolutions and the classifier, each a kernel and a bias
  std::vector<Tensor> before;
  for (const Tensor& w : weights) before.push_back(w.clone());
  Generator gen(11);
  const Tensor x = randn({4, 3, 64, 64}, {}, &gen), labels = randint(0, 10, {4}, kInt64, &gen);
  optim::Adam adam(weights, {.lr = 1e-3});
  std::vector<double> losses;
  for (int step = 0; step < 4; ++step) {
    adam.zero_grad();
    Tensor loss = cross_entropy(model->run({x})[0], labels);
    losses.push_back(loss.item<double>());
    loss.backward();
    adam.step();
  }
  EXPECT_LT(losses.back(), 0.5 * losses.front()) << losses.front() << " -> " << losses.back();
  for (size_t i = 0; i < weights.size(); ++i)
    EXPECT_GT(max(abs(weights[i] - before[i])).item<double>(), 1e-5) << "trainable weight " << i;
}
