// Keras and TensorFlow 1 recurrent weights (io::load_keras_weights) in Strata's LSTM / GRU: the
// outputs match a NumPy implementation of Keras's and TensorFlow 1's cell equations
// (fixtures/make_keras_recurrent.py made the files and the reference outputs).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/expect_error.hpp"
#include "strata/io/keras.hpp"
#include "strata/io/npz.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

std::string fixture(const std::string& name) {
  return (std::filesystem::path(STRATA_TESTS_DIR) / "nn/fixtures" / name).string();
}

Tensor reference(const std::string& key) {
  for (auto& [n, t] : io::load_npz(fixture("keras_recurrent_reference.npz")))
    if (n == key) return t;
  throw Error("no reference '" + key + "'");
}

// The Keras model of the fixture: LSTM(5) and GRU(4) on x, Dense(2) on the LSTM's last output.
std::unique_ptr<nn::Model> keras_net() {
  auto x = nn::Input({-1, 6, 3});
  auto seq = nn::LSTM(5, {}, "lstm")(x);
  auto gru = nn::GRU(4, {}, "gru")(x);
  auto dense = nn::Dense(2, {}, "dense")(nn::Lambda([](const Tensor& s) { return select(s, 1, -1); })(seq));
  return std::make_unique<nn::Model>(std::vector<nn::Symbol>{x}, std::vector<nn::Symbol>{seq, gru, dense});
}

TEST(KerasRecurrentTest, KerasLstmAndGruMatchTheirEquations) {
  auto owned = keras_net();
  nn::Model& net = *owned;
  const io::NamedTensors weights = io::load_keras_weights(fixture("keras_recurrent.h5"));
  ASSERT_EQ(weights.size(), 8u);
  EXPECT_EQ(weights[0].first, "lstm/kernel");
  EXPECT_EQ(weights[1].first, "lstm/recurrent_kernel");
  EXPECT_EQ(weights[5].first, "gru/bias");
  EXPECT_EQ(weights[6].first, "dense/W");
  EXPECT_EQ(nn::assign_weights_by_name(net, weights), 8u);
  const auto out = net.run({reference("x")});
  EXPECT_TRUE(allclose(out[0], reference("lstm"), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(out[1], reference("gru"), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(out[2], reference("dense"), 1e-5, 1e-6));
  // By order too: the file's order is the model's.
  auto again = keras_net();
  nn::assign_weights(*again, weights);
  const auto by_order = again->run({reference("x")});
  EXPECT_TRUE(allclose(by_order[0], reference("lstm"), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(by_order[1], reference("gru"), 1e-5, 1e-6));
}

TEST(KerasRecurrentTest, TensorFlow1LstmCellIsConverted) {
  const io::NamedTensors weights = io::load_keras_weights(fixture("tf1_lstm.h5"));
  ASSERT_EQ(weights.size(), 3u);
  EXPECT_EQ(weights[0].first, "rnn/kernel");
  EXPECT_EQ(weights[0].second.shape(), Shape({3, 20}));
  EXPECT_EQ(weights[1].second.shape(), Shape({5, 20}));
  nn::LSTM rnn(5, {}, "rnn");
  rnn(zeros({1, 6, 3}));
  EXPECT_EQ(nn::assign_weights_by_name(rnn, weights), 3u);
  EXPECT_TRUE(allclose(rnn(reference("x")), reference("tf1_lstm"), 1e-5, 1e-6));
}

TEST(KerasRecurrentTest, BadTensorFlowCellsAreRefused) {
  testing::expect_error([] { io::tf_lstm_to_keras(zeros({4, 6}), zeros({6}), 1.0, "cell"); }, {"cell", "4 * units"});
  testing::expect_error([] { io::tf_lstm_to_keras(zeros({2, 8}), zeros({8}), 1.0, "cell"); },
                        {"cell", "no input rows"});
  testing::expect_error([] { io::tf_lstm_to_keras(zeros({8, 20}), zeros({16}), 1.0, "cell"); }, {"cell", "[16]"});
}

}  // namespace
}  // namespace strata
