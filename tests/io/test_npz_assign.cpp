// Loading files into a model (nn/load_weights.hpp), by order (TensorLayer's assign_weights /
// load_and_assign_npz) and by name (load_and_assign_npz_dict, load_hdf5_to_weights).
#include <gtest/gtest.h>

#include <filesystem>

#include "fixtures/python_fixtures.hpp"
#include "strata/core/error.hpp"
#include "strata/io/keras.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/load_weights.hpp"
#include "strata/nn/sequential.hpp"
#include "support/expect_error.hpp"

namespace fs = std::filesystem;
using namespace strata;
using strata::testing::expect_error;
using strata::testing::expect_same;
using strata::testing::fixture;
using strata::testing::model_list;

namespace {

// The model make_fixtures.py's model_list() belongs to: dense_1 (3 -> 4), then bn.
struct Net {
  nn::Sequential seq;
  Net() {
    seq.add<nn::Dense>(4, nn::Activation{}, "dense_1");
    seq.add<nn::BatchNorm>(0.9, 1e-5, nn::Activation{}, "bn");
    seq(ones({2, 3}));  // builds the weights
  }
  void expect_loaded() const {
    const auto w = seq.all_weights();
    ASSERT_EQ(w.size(), 6u);
    for (size_t i = 0; i < w.size(); ++i) expect_same(w[i], model_list()[i], seq.named_weights()[i].first);
  }
};

TEST(LoadWeightsTest, ByOrderFromStratasOwnNpzList) {
  const std::string file = (fs::temp_directory_path() / ("strata_assign_" + std::to_string(::getpid()) + ".npz")).string();
  io::save_npz_list(file, model_list());
  Net net;
  nn::assign_weights(net.seq, io::load_npz_list(file));
  fs::remove(file);
  net.expect_loaded();
  // The model computes with what it loaded: dense then batch norm in eval mode.
  net.seq.eval();
  const Tensor y = net.seq(ones({1, 3}));
  const auto w = model_list();
  const std::vector<float> W = w[0].to_vector<float>(), b = w[1].to_vector<float>(), beta = w[2].to_vector<float>(),
                           gamma = w[3].to_vector<float>(), mean = w[4].to_vector<float>(), var = w[5].to_vector<float>();
  for (int j = 0; j < 4; ++j) {
    const float d = W[j] + W[4 + j] + W[8 + j] + b[j];
    EXPECT_NEAR(y.to_vector<float>()[j], gamma[j] * (d - mean[j]) / std::sqrt(var[j] + 1e-5f) + beta[j], 1e-4) << j;
  }
}

TEST(LoadWeightsTest, RefusesMismatches) {
  Net net;
  auto w = model_list();
  w.pop_back();
  expect_error([&] { nn::assign_weights(net.seq, w); }, {"has 6 weights, 5 were given"});
  w = model_list();
  w[0] = ones({4, 3});
  expect_error([&] { nn::assign_weights(net.seq, w); }, {"weight 'dense_1/W' has shape [3, 4]", "value has shape [4, 3]"});
  expect_error([&] { nn::assign_weights_by_name(net.seq, {{"dense_9/W:0", ones({3, 4})}}); },
               {"no weight named 'dense_9/W'", "skip_unknown"});
  EXPECT_EQ(nn::assign_weights_by_name(net.seq, {{"dense_9/W:0", ones({3, 4})}, {"bn/beta:0", zeros({4})}}, true), 1u);
  nn::Dense unbuilt(3);
  expect_error([&] { nn::assign_weights(unbuilt, model_list()); }, {"no weights yet", "build it first"});
}

TEST(LoadWeightsTest, TensorLayerFilesByOrderAndByName) {
  {
    Net net;  // tl.files.load_and_assign_npz
    nn::assign_weights(net.seq, io::load_npz_list(fixture("tl_list.npz")));
    net.expect_loaded();
  }
  {
    Net net;  // tl.files.load_and_assign_npz_dict: names carry TensorFlow's ":0"
    EXPECT_EQ(nn::assign_weights_by_name(net.seq, io::load_npz(fixture("tl_dict.npz"))), 6u);
    net.expect_loaded();
  }
  {
    Net net;  // tl.files.load_hdf5_to_weights
    EXPECT_EQ(nn::assign_weights_by_name(net.seq, io::load_keras_weights(fixture("tl.h5"))), 6u);
    net.expect_loaded();
  }
  {
    Net net;  // tl.files.load_hdf5_to_weights_in_order
    nn::assign_weights(net.seq, io::load_keras_weights(fixture("tl.h5")));
    net.expect_loaded();
  }
}

}  // namespace
