// Whole-sequence recurrent layers: shapes, stacking, states, variable lengths and masks,
// Bidirectional, dropout between layers, a float64 gradient check, and the padding helpers.
#include "layer_check.hpp"
#include "strata/nn/layers/recurrent.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

Tensor rand_seq(const Shape& s, uint64_t seed, DType dtype = kFloat32) {
  Generator gen(seed);
  return uniform(s, -1.0, 1.0, dtype, &gen);
}

TEST(Recurrent, ShapesAndStates) {
  Tensor x = rand_seq({2, 5, 3}, 1);
  nn::LSTM seq(4, {.num_layers = 2});
  nn::RNNResult r = seq.run(x);
  EXPECT_EQ(r.output.shape(), (Shape{2, 5, 4}));
  ASSERT_EQ(r.state.size(), 4u);  // h, c per layer
  for (const Tensor& s : r.state) EXPECT_EQ(s.shape(), (Shape{2, 4}));
  EXPECT_TRUE(allclose(r.state[2], select(r.output, 1, 4)));  // top layer's h is the last output
  auto names = seq.named_weights();
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[3].first, seq.name() + "/cell_1/kernel");
  EXPECT_EQ(seq.cells()[1].kernel.shape(), (Shape{4, 16}));

  nn::GRU last(6, {.return_sequences = false});
  EXPECT_EQ(last(x).shape(), (Shape{2, 6}));
  nn::SimpleRNN simple(3, {}, "", nn::relu);
  Tensor y = simple(x);
  EXPECT_EQ(y.shape(), (Shape{2, 5, 3}));
  EXPECT_GE(amin(y).item<double>(), 0.0);  // the activation is used
}

TEST(Recurrent, InitialStateContinuesASplitSequence) {
  Tensor x = rand_seq({2, 6, 3}, 2);
  for (nn::CellKind kind : {nn::CellKind::simple, nn::CellKind::lstm, nn::CellKind::gru}) {
    nn::Recurrent layer(kind, 4, {.num_layers = 2});
    nn::RNNResult whole = layer.run(x);
    nn::RNNResult first = layer.run(narrow(x, 1, 0, 2));
    nn::RNNResult rest = layer.run(narrow(x, 1, 2, 4), first.state);
    EXPECT_TRUE(allclose(rest.output, narrow(whole.output, 1, 2, 4), 1e-5, 1e-6));
    for (size_t i = 0; i < whole.state.size(); ++i) EXPECT_TRUE(allclose(rest.state[i], whole.state[i], 1e-5, 1e-6));
  }
}

// gradcheck perturbs copies of its inputs; the layer reads its own weights, so each call
// first loads the weights it was given (the originals' values when given the originals).
void expect_layer_gradcheck(nn::Layer& layer, const std::function<Tensor(const std::vector<Tensor>&)>& f,
                            const std::vector<Tensor>& data) {
  std::vector<Tensor> weights = layer.trainable_weights(), pristine;
  for (const Tensor& w : weights) pristine.push_back(clone(w.detach()));
  std::vector<Tensor> inputs = weights;
  inputs.insert(inputs.end(), data.begin(), data.end());
  testing_nn::expect_gradcheck(
      [&](const std::vector<Tensor>& in) {
        {
          NoGradGuard no_grad;
          for (size_t i = 0; i < weights.size(); ++i) copy_(weights[i], in[i].is_same(weights[i]) ? pristine[i] : in[i]);
        }
        return f({in.begin() + static_cast<std::ptrdiff_t>(weights.size()), in.end()});
      },
      inputs);
}

TEST(Recurrent, GradcheckOfAShortSequenceLayer) {
  for (nn::CellKind kind : {nn::CellKind::lstm, nn::CellKind::gru, nn::CellKind::simple}) {
    nn::Recurrent layer(kind, 2, {.num_layers = 2, .init = testing_nn::uniform_cell_init64(3, 0.8)});
    Tensor x = rand_seq({2, 3, 2}, 4, kFloat64), lengths = from_vector<int64_t>({3, 2});
    layer(x);
    expect_layer_gradcheck(
        layer,
        [&](const std::vector<Tensor>& in) {
          std::vector<Tensor> init(kind == nn::CellKind::lstm ? 4 : 2, in[1]);
          nn::RNNResult r = layer.run(in[0], init, lengths);
          return r.output * 1.3 + r.state.back().unsqueeze(1);
        },
        {x, rand_seq({2, 2}, 5, kFloat64)});
  }
}

// Each sequence run alone, cut to its length, gives the masked batch's rows and final states.
void expect_lengths_respected(nn::Recurrent& layer, const Tensor& x, const std::vector<int64_t>& len,
                              const nn::RNNResult& r) {
  const int64_t T = x.shape()[1];
  for (size_t b = 0; b < len.size(); ++b) {
    const int64_t n = len[b];
    Tensor row = narrow(r.output, 0, b, 1);
    nn::RNNResult alone = layer.run(narrow(narrow(x, 0, b, 1), 1, 0, n));
    EXPECT_TRUE(allclose(narrow(row, 1, 0, n), alone.output, 1e-5, 1e-6)) << "sequence " << b;
    if (n < T) EXPECT_EQ(amax(abs(narrow(row, 1, n, T - n))).item<double>(), 0.0) << "padding of " << b;
    for (size_t s = 0; s < r.state.size(); ++s)
      EXPECT_TRUE(allclose(narrow(r.state[s], 0, b, 1), alone.state[s], 1e-5, 1e-6)) << "state of " << b;
  }
}

TEST(Recurrent, LengthsAndMasksSkipPaddedSteps) {
  Tensor x = rand_seq({3, 5, 2}, 6);
  const std::vector<int64_t> len{5, 2, 3};
  for (nn::CellKind kind : {nn::CellKind::lstm, nn::CellKind::gru}) {
    for (bool reverse : {false, true}) {
      nn::Recurrent layer(kind, 3, {.num_layers = 2, .reverse = reverse});
      nn::RNNResult r = layer.run(x, {}, from_vector(len));
      expect_lengths_respected(layer, x, len, r);
      Tensor mask = nn::sequence_mask(from_vector(len), 5, kInt64);
      nn::RNNResult m = layer.run(x, {}, Tensor(), mask);
      EXPECT_TRUE(allclose(m.output, r.output));
    }
  }
}

TEST(Recurrent, ReverseReadsBackwardsWithAlignedOutputs) {
  Tensor x = rand_seq({2, 4, 3}, 7);
  nn::GRU fw(3);
  nn::GRU bw(3, {.reverse = true});
  fw(x);
  bw(x);
  {
    NoGradGuard no_grad;
    for (size_t i = 0; i < 3; ++i) copy_(bw.all_weights()[i], fw.all_weights()[i]);
  }
  EXPECT_TRUE(allclose(bw(x), flip(fw(flip(x, {1})), {1}), 1e-5, 1e-6));
}

TEST(Recurrent, BidirectionalConcatenatesBothDirections) {
  Tensor x = rand_seq({2, 4, 3}, 8);
  nn::Bidirectional bi(nn::LSTM(5, {}, "enc"));
  nn::RNNResult r = bi.run(x, {}, from_vector<int64_t>({4, 3}));
  EXPECT_EQ(r.output.shape(), (Shape{2, 4, 10}));
  ASSERT_EQ(r.state.size(), 4u);
  EXPECT_EQ(bi.backward_layer().name(), "enc_backward");
  EXPECT_EQ(bi.all_weights().size(), 6u);
  EXPECT_TRUE(bi.backward_layer().options().reverse);
  nn::RNNResult f = bi.forward_layer().run(x, {}, from_vector<int64_t>({4, 3}));
  nn::RNNResult b = bi.backward_layer().run(x, {}, from_vector<int64_t>({4, 3}));
  EXPECT_TRUE(allclose(r.output, concat({f.output, b.output}, 2)));
  // The backward direction starts at each sequence's own last step: its output at t = 0 is
  // its final state, and sequence 1 (length 3) is reversed within its length.
  EXPECT_TRUE(allclose(select(b.output, 1, 0), b.state[0]));
  expect_lengths_respected(bi.backward_layer(), x, {4, 3}, b);
  nn::Bidirectional last(nn::GRU(2, {.return_sequences = false}));
  EXPECT_EQ(last(x).shape(), (Shape{2, 4}));
}

TEST(Recurrent, DropoutBetweenLayersInTrainingOnly) {
  Tensor x = rand_seq({4, 6, 3}, 9);
  nn::LSTM layer(8, {.num_layers = 2, .dropout = 0.5});
  Tensor a = layer(x), b = layer(x);
  EXPECT_FALSE(allclose(a, b)) << "training: different masks per call";
  layer.eval();
  Tensor c = layer(x), d = layer(x);
  EXPECT_TRUE(allclose(c, d));
  nn::LSTM single(8, {.dropout = 0.5});  // nothing between layers to drop
  EXPECT_TRUE(allclose(single(x), single(x)));
}

TEST(Recurrent, PaddingHelpers) {
  Tensor ids = from_vector<int64_t>({4, 2, 0, 0, 7, 0, 1, 0, 3, 3, 5, 1}, {3, 4});
  // TensorLayer counts the non-padding steps (a zero inside a sequence counts as padding).
  EXPECT_EQ(nn::retrieve_seq_length(ids).to_vector<int64_t>(), (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(nn::target_mask(ids).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1}));
  // [batch, time, features]: a step is padding when all its features are.
  Tensor feats = from_vector<float>({1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0}, {2, 3, 2});
  EXPECT_EQ(nn::retrieve_seq_length(feats).to_vector<int64_t>(), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(nn::target_mask(feats).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1, 0, 0, 0}));
  EXPECT_EQ(nn::retrieve_seq_length(ids, 3).to_vector<int64_t>(), (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(nn::sequence_mask(from_vector<int64_t>({1, 3}), 3).to_vector<float>(),
            (std::vector<float>{1, 0, 0, 1, 1, 1}));
}

TEST(Recurrent, ErrorsNameTheLayerAndShapes) {
  nn::LSTM layer(4, {.num_layers = 2}, "rnn");
  expect_error([&] { layer(zeros({2, 3})); }, {"rnn (lstm)", "[batch, time, features]", "[2, 3]"});
  layer(zeros({2, 3, 5}));
  expect_error([&] { layer(zeros({2, 3, 6})); }, {"rnn", "[batch, time, 5]", "[2, 3, 6]"});
  expect_error([&] { layer.run(zeros({2, 3, 5}), {zeros({2, 4})}); }, {"rnn", "4 tensors", "got 1"});
  expect_error([&] { layer.run(zeros({2, 3, 5}), {}, from_vector<int64_t>({1, 2, 3})); }, {"rnn", "lengths", "[2]"});
  expect_error([&] { layer.run(zeros({2, 3, 5}), {}, from_vector<int64_t>({1, 4})); }, {"lengths in [0, 3]", "4"});
  expect_error([&] { layer.run(zeros({2, 3, 5}), {}, Tensor(), zeros({2, 4})); }, {"rnn", "mask", "[2, 3]", "[2, 4]"});
  expect_error([] { nn::GRU(4, {.dropout = 1.0}); }, {"dropout", "[0, 1)"});
}

}  // namespace
}  // namespace strata
