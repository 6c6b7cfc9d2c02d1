// ONNX models whose inputs have symbolic sizes past the batch, run at the sizes their inputs come
// with (onnx::ShapePolymorphicModel, docs/interop.md "Symbolic sizes past the batch"): each size
// matches onnxruntime, shape arithmetic is resolved per size (never folded at one size and used
// at another), every size trains the one set of weights, and what cannot run is refused naming
// the input, the axis and the sizes. The files come from tests/onnx/make_symbolic_sizes.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <strata/nn/load_weights.hpp>
#include <strata/onnx/onnx.hpp>
#include <strata/onnx/shape_polymorphic.hpp>
#include <strata/optim/sgd.hpp>
#include <strata/strata.hpp>

#include "onnx/onnx_runtime.hpp"
#include "support/expect_error.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

using Sizes = std::map<std::string, int64_t>;

// The generator's files, written once per test process.
const std::filesystem::path& symbolic_files() {
  static const std::filesystem::path dir = onnx_generated_files("make_symbolic_sizes.py", "symbolic_sizes");
  return dir;
}

std::string symbolic_file(const std::string& name) { return (symbolic_files() / (name + ".onnx")).string(); }

// Runs the layer on `inputs` and checks every output against onnxruntime's for the same file.
void expect_matches_onnxruntime(onnx::ShapePolymorphicModel& net, const std::string& name,
                                const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> got = net.run(inputs);
  const std::vector<Tensor> want = onnxruntime_outputs(symbolic_files() / (name + ".onnx"), inputs);
  ASSERT_EQ(got.size(), want.size()) << name;
  std::string shapes;
  for (const Tensor& x : inputs) shapes += x.shape().str();
  for (size_t i = 0; i < got.size(); ++i)
    expect_close(got[i], want[i], name + " at " + shapes + ", output " + std::to_string(i));
}

#define SKIP_WITHOUT_ONNXRUNTIME() \
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)"

}  // namespace

// Conv + Relu + GlobalAveragePool of symbolic height and width at three sizes, and at another
// batch: one static model per (height, width), the batch symbolic within each.
TEST(OnnxShapePolymorphic, ImageModelMatchesOnnxruntimeAtEachSize) {
  SKIP_WITHOUT_ONNXRUNTIME();
  auto net = onnx::load_onnx_any_size(symbolic_file("conv_gap"));
  EXPECT_EQ(net->num_inputs(), 1u);
  EXPECT_EQ(net->num_outputs(), 1u);
  EXPECT_FALSE(net->built());  // nothing is imported before the first call
  Generator gen(1);
  for (const Shape& shape : {Shape{2, 3, 7, 5}, Shape{2, 3, 9, 12}, Shape{2, 3, 4, 4}, Shape{3, 3, 7, 5}})
    expect_matches_onnxruntime(*net, "conv_gap", {randn(shape, {}, &gen)});
  EXPECT_EQ(net->cached_shapes(), 3u);
  EXPECT_EQ(net->sizes_of({Shape{5, 3, 9, 12}}), (Sizes{{"height", 9}, {"width", 12}}));
  ASSERT_NE(net->instance({{"height", 9}, {"width", 12}}), nullptr);
  EXPECT_EQ(net->instance({{"height", 10}, {"width", 12}}), nullptr);
  // calling the layer gives the first output
  const Tensor x = randn({2, 3, 6, 8}, {}, &gen);
  expect_close((*net)(x), net->run({x})[0], "the layer's call");
}

// A Reshape whose target is computed from Shape of the symbolic axis ([-1, 2L]): imported at L = 3
// the target would be [-1, 6], which at L = 6 makes [2N, 6] instead of [N, 12]. Each length gets
// its own target.
TEST(OnnxShapePolymorphic, ShapeArithmeticIsResolvedAtEachSize) {
  SKIP_WITHOUT_ONNXRUNTIME();
  auto net = onnx::load_onnx_any_size(symbolic_file("reshape_shape"));
  Generator gen(2);
  const Tensor at3 = randn({2, 3, 2}, {}, &gen), at6 = randn({2, 6, 2}, {}, &gen);
  expect_matches_onnxruntime(*net, "reshape_shape", {at3});
  expect_matches_onnxruntime(*net, "reshape_shape", {at6});
  EXPECT_EQ(net->run({at6})[0].shape(), (Shape{2, 12}));
  EXPECT_EQ(net->run({at3})[0].shape(), (Shape{2, 6}));
  // the static import at L = 3 fixes the length, and says so for any other
  auto fixed = onnx::load_onnx(symbolic_file("reshape_shape"), {.sizes = {{"L", 3}}});
  EXPECT_THROW(fixed->run({at6}), Error);
}

// Slices over the symbolic axis, one with an end computed from Shape (L / 2): both outputs at
// two lengths.
TEST(OnnxShapePolymorphic, SliceOverASymbolicAxis) {
  SKIP_WITHOUT_ONNXRUNTIME();
  auto net = onnx::load_onnx_any_size(symbolic_file("slice_length"));
  EXPECT_EQ(net->num_outputs(), 2u);
  Generator gen(3);
  for (int64_t length : {6, 9}) expect_matches_onnxruntime(*net, "slice_length", {randn({2, 3, length}, {}, &gen)});
  EXPECT_EQ(net->run({randn({2, 3, 9}, {}, &gen)})[1].shape(), (Shape{2, 3, 4}));
}

// Sequence models of symbolic length: self-attention over T (MatMul, Softmax over T, ReduceMean
// over T) and a batch-first LSTM (a Transpose to time-major, then LSTM), at two lengths each; and
// an axis with neither a size nor a name.
TEST(OnnxShapePolymorphic, SequenceModelsAtTwoLengths) {
  SKIP_WITHOUT_ONNXRUNTIME();
  Generator gen(4);
  auto attention = onnx::load_onnx_any_size(symbolic_file("attention"));
  auto lstm = onnx::load_onnx_any_size(symbolic_file("lstm_batch_first"));
  for (int64_t length : {4, 7}) {
    expect_matches_onnxruntime(*attention, "attention", {randn({2, length, 8}, {}, &gen)});
    expect_matches_onnxruntime(*lstm, "lstm_batch_first", {randn({2, length, 3}, {}, &gen)});
  }
  EXPECT_EQ(attention->cached_shapes(), 2u);
  auto anonymous = onnx::load_onnx_any_size(symbolic_file("anonymous_axis"));
  for (int64_t length : {3, 5})
    expect_matches_onnxruntime(*anonymous, "anonymous_axis", {randn({2, length, 4}, {}, &gen)});
  EXPECT_EQ(anonymous->sizes_of({Shape{2, 5, 4}}), (Sizes{{"x:1", 5}}));
}

// A real exporter's graph: torchvision's ResNet-18 (make_resnet18_any_size.py: the committed
// whole-model file, filled, its height and width made symbolic) at three image sizes.
TEST(OnnxShapePolymorphic, TorchvisionResNet18AtThreeSizes) {
  SKIP_WITHOUT_ONNXRUNTIME();
  const auto dir = onnx_generated_files("make_resnet18_any_size.py", "resnet18_any_size");
  const auto file = dir / "resnet18_any_size.onnx";
  auto net = onnx::load_onnx_any_size(file.string());
  Generator gen(8);
  for (const Shape& shape : {Shape{2, 3, 64, 64}, Shape{2, 3, 96, 80}, Shape{2, 3, 40, 56}}) {
    const Tensor x = randn(shape, {}, &gen);
    expect_close(net->run({x})[0], onnxruntime_outputs(file, {x})[0], "ResNet-18 at " + shape.str());
  }
  EXPECT_EQ(net->trainable_weights().size(),
            onnx::load_onnx(file.string(), {.sizes = {{"height", 64}, {"width", 64}}})->trainable_weights().size());
  std::filesystem::remove_all(dir);
}

// Training: the layer's weights are the first instance's (named as load_onnx's model names them,
// none twice); a backward pass through another size's instance puts into them the gradient a
// static model at that size computes; SGD steps alternating two sizes lower both losses, and
// both sizes then compute with the same updated weights.
TEST(OnnxShapePolymorphic, EverySizeTrainsOneSetOfWeights) {
  SKIP_WITHOUT_ONNXRUNTIME();
  const std::string file = symbolic_file("conv_gap");
  auto net = onnx::load_onnx_any_size(file);
  net->train();
  Generator gen(5);
  const Tensor xa = randn({4, 3, 6, 6}, {}, &gen), xb = randn({4, 3, 8, 5}, {}, &gen);
  const Tensor ta = randn({4, 4, 1, 1}, {}, &gen), tb = randn({4, 4, 1, 1}, {}, &gen);
  const Sizes sizes_a{{"height", 6}, {"width", 6}}, sizes_b{{"height", 8}, {"width", 5}};

  Tensor loss_a = mse_loss((*net)(xa), ta);  // builds: the first instance is at 6 x 6
  std::vector<std::string> names;
  for (auto& [name, w] : net->named_weights()) names.push_back(name);
  std::vector<std::string> static_names;
  for (auto& [name, w] : onnx::load_onnx(file, {.sizes = sizes_b})->named_weights()) static_names.push_back(name);
  EXPECT_EQ(names, static_names);
  const std::vector<Tensor> weights = net->trainable_weights();
  ASSERT_EQ(weights.size(), 2u);

  // the gradient through the 8 x 5 instance lands in the first instance's weights, as a static
  // model at 8 x 5 (the same weights, from the file) computes it
  Tensor loss_b = mse_loss((*net)(xb), tb);
  loss_b.backward();
  auto reference = onnx::load_onnx(file, {.sizes = sizes_b});
  reference->train();
  Tensor ref_loss = mse_loss(reference->run({xb})[0], tb);
  ref_loss.backward();
  const std::vector<Tensor> ref_weights = reference->trainable_weights();
  for (size_t i = 0; i < weights.size(); ++i) {
    ASSERT_TRUE(weights[i].grad().defined()) << names[i];
    expect_close(weights[i].grad(), ref_weights[i].grad(), "gradient of " + names[i]);
  }
  // the instances hold the first one's storage, not copies of it
  const auto instance_b = net->instance(sizes_b);
  ASSERT_NE(instance_b, nullptr);
  const std::vector<Tensor> b_weights = instance_b->trainable_weights();
  ASSERT_EQ(b_weights.size(), weights.size());
  for (size_t i = 0; i < weights.size(); ++i)
    EXPECT_EQ(b_weights[i].impl()->storage.get(), weights[i].impl()->storage.get()) << names[i];

  optim::SGD sgd(weights, {.lr = 0.5});
  const float first_a = loss_a.item<float>(), first_b = loss_b.item<float>();
  float last_a = 0, last_b = 0;
  for (int step = 0; step < 6; ++step) {
    const bool a = step % 2 == 0;
    sgd.zero_grad();
    Tensor loss = mse_loss((*net)(a ? xa : xb), a ? ta : tb);
    loss.backward();
    sgd.step();
    (a ? last_a : last_b) = loss.item<float>();
  }
  {
    NoGradGuard no_grad;
    last_a = mse_loss((*net)(xa), ta).item<float>();
    last_b = mse_loss((*net)(xb), tb).item<float>();
  }
  EXPECT_LT(last_a, 0.9f * first_a);
  EXPECT_LT(last_b, 0.9f * first_b);
  EXPECT_EQ(net->trainable_weights().size(), 2u);  // still one set

  // both sizes compute with the trained weights: static models at each size given them agree
  NoGradGuard no_grad;
  for (const auto& [x, sizes] : {std::pair{xa, sizes_a}, std::pair{xb, sizes_b}}) {
    auto fresh = onnx::load_onnx(file, {.sizes = sizes});
    const Tensor untrained = fresh->run({x})[0];
    EXPECT_EQ(nn::assign_weights_by_name(*fresh, net->named_weights()), 2u);
    expect_close((*net)(x), fresh->run({x})[0], "trained, at " + x.shape().str());
    EXPECT_GT(amax(abs(sub(untrained, (*net)(x)))).item<float>(), 1e-3f) << "training changed nothing";
  }
}

// Inside a dynamic model: the layer is one child whose weights are the first instance's, at any
// number of sizes.
TEST(OnnxShapePolymorphic, ComposesIntoADynamicModel) {
  SKIP_WITHOUT_ONNXRUNTIME();
  struct Net : nn::Module {
    std::shared_ptr<onnx::ShapePolymorphicModel> features = onnx::load_onnx_any_size(symbolic_file("conv_gap"));
    nn::Dense head{2};
    Tensor forward(const Tensor& x) override { return head((*features)(x).reshape({x.shape()[0], 4})); }
  } net;
  Generator gen(6);
  for (const Shape& shape : {Shape{2, 3, 5, 5}, Shape{2, 3, 9, 4}, Shape{2, 3, 6, 11}})
    EXPECT_EQ(net(randn(shape, {}, &gen)).shape(), (Shape{2, 2}));
  EXPECT_EQ(net.trainable_weights().size(), 4u);  // the conv's W and B, the head's W and b
  EXPECT_EQ(net.features->cached_shapes(), 3u);
}

// At most max_cached_shapes static models are kept; the first, whose weights the others use,
// stays; a size dropped and asked again is imported again and computes the same.
TEST(OnnxShapePolymorphic, KeepsABoundedNumberOfSizes) {
  SKIP_WITHOUT_ONNXRUNTIME();
  auto net = onnx::load_onnx_any_size(symbolic_file("conv_gap"), {.max_cached_shapes = 2});
  Generator gen(7);
  const Tensor first = randn({2, 3, 5, 5}, {}, &gen), second = randn({2, 3, 6, 6}, {}, &gen);
  const Tensor second_out = (*net)(second).clone();  // the first instance: 6 x 6
  (*net)(first);
  (*net)(randn({2, 3, 7, 7}, {}, &gen));
  EXPECT_EQ(net->cached_shapes(), 2u);
  EXPECT_NE(net->instance({{"height", 6}, {"width", 6}}), nullptr);
  EXPECT_EQ(net->instance({{"height", 5}, {"width", 5}}), nullptr);
  expect_matches_onnxruntime(*net, "conv_gap", {first});
  expect_close((*net)(second), second_out, "the first instance, kept");
  expect_error([] { onnx::load_onnx_any_size(symbolic_file("conv_gap"), {.max_cached_shapes = 1}); },
               {"conv_gap.onnx", "max_cached_shapes is 1"});
}

// What cannot run is refused naming the input, the axis, the name and the sizes; a refused call
// leaves the layer usable.
TEST(OnnxShapePolymorphic, RefusesWhatCannotRun) {
  SKIP_WITHOUT_ONNXRUNTIME();
  auto net = onnx::load_onnx_any_size(symbolic_file("conv_gap"));
  // an import that fails at the sizes given, on the first call (nothing built yet) and later
  expect_error([&] { (*net)(randn({2, 3, 2, 5})); }, {"conv_gap.onnx", "importing at height=2, width=5"});
  EXPECT_FALSE(net->built());
  EXPECT_EQ((*net)(randn({2, 3, 5, 5})).shape(), (Shape{2, 4, 1, 1}));
  expect_error([&] { (*net)(randn({2, 3, 5, 1})); }, {"importing at height=5, width=1"});
  EXPECT_EQ(net->cached_shapes(), 1u);
  expect_error([&] { (*net)(randn({2, 3, 7})); }, {"input 'img' has rank 4 in the file", "got shape [2, 3, 7]"});
  expect_error([&] { (*net)(randn({2, 4, 7, 5})); }, {"input 'img' axis 1 has size 3 in the file, got 4"});
  expect_error([&] { net->run({randn({2, 3, 5, 5}), randn({2, 3, 5, 5})}); }, {"expects 1 inputs ('img'), got 2"});
  EXPECT_EQ((*net)(randn({2, 3, 6, 5})).shape(), (Shape{2, 4, 1, 1}));

  auto two = onnx::load_onnx_any_size(symbolic_file("two_inputs"));
  expect_error(
      [&] {
        two->run({randn({2, 5, 4}), randn({2, 6, 4})});
      },
      {"input 'a' axis 1 and input 'b' axis 1 are both 'seq' but have sizes 5 and 6"});
  expect_error(
      [&] {
        two->run({randn({2, 5, 4}), randn({3, 5, 4})});
      },
      {"input 'a' axis 0 and input 'b' axis 0 are both 'N' but have sizes 2 and 3"});
  const Tensor a = randn({2, 5, 4}), b = randn({2, 5, 4});
  expect_close(two->run({a, b})[0], relu(add(a, b)), "a + b");
  expect_error([] { onnx::from_onnx_any_size("not a protobuf", "bytes"); }, {"bytes", "not an ONNX model"});
}
