// Recurrent cells: weight shapes, float64 gradient checks of each cell step, values against a
// plain-double loop, and a cell stepped by hand against the whole-sequence layer.
#include "layer_check.hpp"
#include "recurrent_reference.hpp"
#include "strata/nn/layers/recurrent.hpp"
#include "strata/ops/rnn.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;

std::vector<double> values(const Tensor& t) { return t.contiguous().to_vector<double>(); }

TEST(RecurrentCells, WeightShapesFollowKeras) {
  nn::LSTMCell lstm(5);
  nn::GRUCell gru(4);
  nn::SimpleRNNCell simple(3);
  Tensor x = zeros({2, 7});
  EXPECT_EQ(lstm(x).shape(), (Shape{2, 5}));
  EXPECT_EQ(gru(x).shape(), (Shape{2, 4}));
  EXPECT_EQ(simple(x).shape(), (Shape{2, 3}));
  EXPECT_EQ(lstm.kernel.shape(), (Shape{7, 20}));
  EXPECT_EQ(lstm.recurrent_kernel.shape(), (Shape{5, 20}));
  EXPECT_EQ(lstm.bias.shape(), (Shape{20}));
  EXPECT_EQ(gru.kernel.shape(), (Shape{7, 12}));
  EXPECT_EQ(gru.bias.shape(), (Shape{2, 12}));
  EXPECT_EQ(simple.recurrent_kernel.shape(), (Shape{3, 3}));
  // Keras's unit_forget_bias: ones for the forget gate only.
  std::vector<double> b = values(lstm.bias);
  for (int j = 0; j < 20; ++j) EXPECT_EQ(b[j], j >= 5 && j < 10 ? 1.0 : 0.0) << j;
  auto names = lstm.named_weights();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0].first, lstm.name() + "/kernel");
  EXPECT_EQ(names[1].first, lstm.name() + "/recurrent_kernel");
  EXPECT_EQ(names[2].first, lstm.name() + "/bias");
  EXPECT_EQ(lstm.step(x, lstm.zero_state(2)).size(), 2u);
}

// The cell's computation in its functional form, weights as inputs (float64).
TEST(RecurrentCells, GradcheckEveryKind) {
  Generator gen(3);
  for (nn::CellKind kind : {nn::CellKind::simple, nn::CellKind::lstm, nn::CellKind::gru}) {
    nn::RNNCell cell(kind, 3, "", testing_nn::uniform_cell_init64(10 + static_cast<int>(kind), 1.0));
    Tensor x = uniform({2, 4}, -1.0, 1.0, kFloat64, &gen);
    cell(x);  // builds
    std::vector<Tensor> inputs{x, cell.kernel, cell.recurrent_kernel, cell.bias};
    for (Tensor& s : cell.zero_state(2, kFloat64)) inputs.push_back(uniform({2, 3}, -1.0, 1.0, kFloat64, &gen));
    expect_gradcheck(
        [kind](const std::vector<Tensor>& in) {
          std::vector<Tensor> next =
              nn::cell_step(kind, nn::input_gates(kind, in[0], in[1], in[3]), {in.begin() + 4, in.end()}, in[2], in[3]);
          return next.size() == 2 ? next[0] * 1.5 + next[1] : next[0];
        },
        inputs);
    // The layer computes the same.
    std::vector<Tensor> state{inputs.begin() + 4, inputs.end()};
    Tensor want = nn::cell_step(kind, nn::input_gates(kind, x, cell.kernel, cell.bias), state, cell.recurrent_kernel,
                                cell.bias)[0];
    EXPECT_TRUE(allclose(cell.step(x, state)[0], want));
  }
}

TEST(RecurrentCells, LstmAndGruMatchAPlainLoop) {
  const int B = 2, T = 3, F = 2, H = 3;
  Generator gen(5);
  for (bool is_lstm : {true, false}) {
    nn::Recurrent layer(is_lstm ? nn::CellKind::lstm : nn::CellKind::gru, H, {}, "", {});
    Tensor x = uniform({B, T, F}, -1.0, 1.0, kFloat32, &gen);
    layer(x);
    testing_nn::randomize(layer, is_lstm ? 1 : 2);
    nn::RNNResult got = layer.run(x);
    const auto& w = layer.cells()[0];
    testing_nn::RefRun want = testing_nn::reference_rnn(is_lstm, values(x), B, T, F, H, values(w.kernel),
                                                        values(w.recurrent_kernel), values(w.bias));
    std::vector<double> out = values(got.output), h = values(got.state[0]);
    ASSERT_EQ(out.size(), want.out.size());
    for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want.out[i], 1e-5) << (is_lstm ? "lstm " : "gru ") << i;
    for (size_t i = 0; i < h.size(); ++i) EXPECT_NEAR(h[i], want.h[i], 1e-5);
    if (is_lstm) {
      std::vector<double> c = values(got.state[1]);
      for (size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(c[i], want.c[i], 1e-5);
    }
  }
}

TEST(RecurrentCells, CellSteppedByHandEqualsTheSequenceLayer) {
  Generator gen(8);
  Tensor x = uniform({3, 4, 2}, -1.0, 1.0, kFloat32, &gen);
  nn::LSTM layer(5);
  nn::LSTMCell cell(5);
  layer(x);
  cell(select(x, 1, 0));
  testing_nn::randomize(layer, 4);
  {
    NoGradGuard no_grad;
    copy_(cell.kernel, layer.cells()[0].kernel);
    copy_(cell.recurrent_kernel, layer.cells()[0].recurrent_kernel);
    copy_(cell.bias, layer.cells()[0].bias);
  }
  std::vector<Tensor> state = cell.zero_state(3);
  for (int t = 0; t < 4; ++t) state = cell.step(select(x, 1, t), state);
  nn::RNNResult r = layer.run(x);
  EXPECT_TRUE(allclose(state[0], select(r.output, 1, 3), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(state[1], r.state[1], 1e-5, 1e-6));
}

TEST(RecurrentCells, ErrorsNameTheCellAndShapes) {
  nn::GRUCell cell(4, "enc");
  cell(zeros({2, 3}));
  expect_error([&] { cell(zeros({2, 5})); }, {"enc (gru_cell)", "[batch, 3]", "[2, 5]"});
  expect_error([&] { cell.step(zeros({2, 3}), {zeros({2, 3})}); }, {"enc", "state of shape [2, 4]", "[2, 3]"});
  expect_error([&] { cell.step(zeros({2, 3}), {}); }, {"enc", "1 state tensor(s)"});
  expect_error([] { lstm_cell(zeros({2, 8}), zeros({2, 6}), zeros({2, 2})); },
               {"lstm_cell", "h_gates", "[2, 8]", "[2, 6]"});
}

}  // namespace
}  // namespace strata
