// HDF5 weight files: TensorLayer's save_weights_to_hdf5 and Keras' save_weights / model.save
// layouts read from h5py-made files, Strata's own files read back, names mapped to Strata's,
// and broken files refused with errors naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"
#include "support/expect_error.hpp"
#include "fixtures/python_fixtures.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/io/hdf5.hpp"
#include "strata/io/keras.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::io;
using strata::testing::expect_error;
using strata::testing::expect_same;
using strata::testing::fixture;
using strata::testing::model_list;

namespace {

std::vector<std::string> names_of(const NamedTensors& t) {
  std::vector<std::string> out;
  for (const auto& [n, v] : t) out.push_back(n);
  return out;
}

using Hdf5Test = strata::testing::TempDirTest;

TEST_F(Hdf5Test, RoundTripsLayersOfEveryDtype) {
  NamedTensors named;
  for (const auto& [n, t] : strata::testing::plain_arrays()) named.emplace_back("layer_" + n + "/" + n, t);
  named.emplace_back("layer_f4/extra:0", from_vector(std::vector<double>{1, 2, 3, 4}, {2, 2}).transpose(0, 1));
  const std::vector<LayerWeights> layers = layers_of(named);
  ASSERT_EQ(layers.size(), 9u);
  EXPECT_EQ(layers[8].layer, "layer_f4");  // not consecutive with the first layer_f4: its own group
  layers_of({});
  std::vector<LayerWeights> unique(layers.begin(), layers.end() - 1);
  unique[0].weights.push_back(named.back());
  unique.push_back({"no_weights", {}});
  unique.push_back({"odd_shapes", {{"odd_shapes/empty", zeros({0, 3})}, {"odd_shapes/scalar", full({}, 2.5f)}}});
  save_hdf5_weights(path("m.h5"), unique);
  strata::testing::expect_same_layers(load_hdf5_weights(path("m.h5")), unique, "m.h5");
  expect_error([&] { save_hdf5_weights(path("d.h5"), {{"a", {}}, {"a", {}}}); }, {"d.h5", "'a'", "twice"});
  expect_error([] { layers_of({{"W", ones({1})}}); }, {"'W' has no layer part"});
}

TEST_F(Hdf5Test, MapsKerasAndTensorLayerNamesToStratas) {
  EXPECT_EQ(strata_weight_name("dense_1/kernel:0"), "dense_1/W");
  EXPECT_EQ(strata_weight_name("conv/filters:0"), "conv/W");
  EXPECT_EQ(strata_weight_name("d/biases:0"), "d/b");
  EXPECT_EQ(strata_weight_name("bias"), "b");
  EXPECT_EQ(strata_weight_name("bn/moving_variance:0"), "bn/moving_var");
  EXPECT_EQ(strata_weight_name("sep/depthwise_kernel:0"), "sep/depthwise_W");
  EXPECT_EQ(strata_weight_name("emb/embeddings:0"), "emb/embeddings");
  EXPECT_EQ(strata_weight_name("lstm/recurrent_kernel:0"), "lstm/recurrent_kernel");
  // Batch norm: Keras' gamma, beta become Strata's beta, gamma; a nested model's weights are
  // named after their own layers.
  const Tensor g = ones({2}), b = zeros({2}), k = ones({2, 2});
  const NamedTensors w = strata_weights({{"bn", {{"bn/gamma:0", g}, {"bn/beta:0", b}, {"bn/moving_mean:0", b}}},
                                         {"model_1", {{"dense_7/kernel:0", k}, {"bias:0", b}}}});
  EXPECT_EQ(names_of(w), (std::vector<std::string>{"bn/beta", "bn/gamma", "bn/moving_mean", "dense_7/W", "model_1/b"}));
  EXPECT_TRUE(w[0].second.is_same(b));
  expect_error([&] { strata_weights({{"x", {{"x/kernel:0", k}, {"x/weights:0", k}}}}); }, {"two weights map to 'x/W'"});
  // Keras's DepthwiseConv2D kernel is DepthwiseConv2d's W; SeparableConv2D's stays depthwise_W.
  const NamedTensors conv = strata_weights(
      {{"dw", {{"dw/depthwise_kernel:0", k}, {"dw/bias:0", b}}},
       {"sep", {{"sep/depthwise_kernel:0", k}, {"sep/pointwise_kernel:0", k}, {"sep/bias:0", b}}}});
  EXPECT_EQ(names_of(conv),
            (std::vector<std::string>{"dw/W", "dw/b", "sep/depthwise_W", "sep/pointwise_W", "sep/b"}));
}

TEST_F(Hdf5Test, ReadsTensorLayersSaveWeightsToHdf5) {
  const auto layers = load_hdf5_weights(fixture("tl.h5"));
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].layer, "input_1");
  EXPECT_TRUE(layers[0].weights.empty());  // h5py's empty weight_names is a float array
  EXPECT_EQ(names_of(layers[1].weights), (std::vector<std::string>{"dense_1/W:0", "dense_1/b:0"}));
  const NamedTensors w = load_keras_weights(fixture("tl.h5"));
  EXPECT_EQ(names_of(w), (std::vector<std::string>{"dense_1/W", "dense_1/b", "bn/beta", "bn/gamma", "bn/moving_mean",
                                                   "bn/moving_var"}));
  for (size_t i = 0; i < w.size(); ++i) expect_same(w[i].second, model_list()[i], w[i].first);
}

TEST_F(Hdf5Test, ReadsKerasSaveWeightsAndWholeModelFiles) {
  std::vector<float> conv(72);
  for (int i = 0; i < 72; ++i) conv[i] = static_cast<float>(i / 10.0);
  const auto m = model_list();
  for (const char* file : {"keras.h5", "keras_model.h5"}) {  // byte-string and vlen-string attributes
    SCOPED_TRACE(file);
    const NamedTensors w = load_keras_weights(fixture(file));
    EXPECT_EQ(names_of(w), (std::vector<std::string>{"conv2d/W", "conv2d/b", "batch_normalization/beta",
                                                     "batch_normalization/gamma", "batch_normalization/moving_mean",
                                                     "batch_normalization/moving_var", "dense/W", "dense/b"}));
    expect_same(w[0].second, from_vector(conv, {3, 3, 2, 4}), "HWIO kernel, as Strata's [kh, kw, in, out]");
    expect_same(w[2].second, m[2], "beta");
    expect_same(w[3].second, m[3], "gamma");
    expect_same(w[6].second, m[0], "float16 kernel widened to float32 (its values are exact in float16)");
    expect_same(w[7].second, m[1].to(kFloat64), "float64 bias");
  }
}

TEST_F(Hdf5Test, RefusesBrokenFiles) {
  {
    std::ofstream(path("text.h5")) << "not hdf5 at all";
  }
  expect_error([&] { load_hdf5_weights(path("text.h5")); }, {path("text.h5"), "not an HDF5 file"});
  expect_error([&] { load_hdf5_weights(path("missing.h5")); }, {"missing.h5", "cannot open"});
  expect_error([&] { load_hdf5_weights(fixture("no_layer_names.h5")); },
               {"no_layer_names.h5", "no 'layer_names' attribute", "not a Keras or TensorLayer weight file"});
  // 4 TB: past limits().max_tensor_bytes, and with the limit out of the way, past what it stores.
  expect_error([&] { load_hdf5_weights(fixture("huge.h5")); },
               {"huge.h5", "weight 'big/W:0' of layer 'big'", "[1000000, 1000000]", "4000000000000", "max_tensor_bytes"});
  const uint64_t saved_limit = limits().max_tensor_bytes;
  limits().max_tensor_bytes = ~uint64_t{0};
  expect_error([&] { load_hdf5_weights(fixture("huge.h5")); },
               {"huge.h5", "weight 'big/W:0' of layer 'big'", "[1000000, 1000000]", "4000000000000 bytes", "refused"});
  limits().max_tensor_bytes = saved_limit;
  expect_error([&] { load_hdf5_weights(fixture("missing_weight.h5")); },
               {"missing_weight.h5", "'dense_1/W:0'", "has no dataset"});
  // Every truncation point of a real file: an error, never a crash.
  std::ifstream in(fixture("tl.h5"), std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  for (size_t n : {size_t{0}, size_t{8}, size_t{100}, bytes.size() / 4, bytes.size() / 2, bytes.size() - 100,
                   bytes.size() - 1}) {
    std::ofstream(path("cut.h5"), std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(n));
    EXPECT_THROW(load_hdf5_weights(path("cut.h5")), Error) << n;
  }
}

}  // namespace
