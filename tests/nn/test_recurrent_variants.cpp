// Keras's recurrent variants as layer options (nn/layers/recurrent.hpp): the GRU with reset_after =
// false and LSTM / GRU with other activation and recurrent_activation. Values against a
// plain-double loop of Keras's equations, float64 finite-difference gradients of the unfused
// steps, whole-model files that keep the options, and configs written before the options
// existed loading as before.
#include <cmath>
#include <functional>

#include "layer_check.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/layers/recurrent.hpp"
#include "support/temp_dir.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;

std::vector<double> as_doubles(const Tensor& t) { return t.contiguous().to_vector<double>(); }

using ScalarFn = std::function<double(double)>;
const ScalarFn kTanh = [](double v) { return std::tanh(v); };
const ScalarFn kSigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
const ScalarFn kRelu = [](double v) { return v > 0 ? v : 0.0; };
const ScalarFn kHardSigmoid = [](double v) { return std::min(1.0, std::max(0.0, (v + 3) / 6)); };
const ScalarFn kSoftsign = [](double v) { return v / (1 + std::abs(v)); };

struct RefCell {
  bool lstm = false;
  ScalarFn act = kTanh, gate = kSigmoid;
  bool reset_after = true;
};

struct RefOut {
  std::vector<double> out, h, c;  // [B, T, H], [B, H], [B, H]
};

// Keras's LSTMCell / GRUCell equations in doubles. x [B, T, F]; W [F, G·H]; U [H, G·H]; bias
// [G·H], or [2, 3H] for a reset-after GRU (input row, recurrent row).
RefOut keras_loop(const RefCell& cell, const std::vector<double>& x, int B, int T, int F, int H,
                  const std::vector<double>& W, const std::vector<double>& U, const std::vector<double>& bias) {
  const int G = (cell.lstm ? 4 : 3) * H;
  const bool two_biases = !cell.lstm && cell.reset_after;
  RefOut r{std::vector<double>(B * T * H), std::vector<double>(B * H), std::vector<double>(B * H)};
  for (int b = 0; b < B; ++b) {
    std::vector<double> h(H, 0), c(H, 0);
    for (int t = 0; t < T; ++t) {
      std::vector<double> xg(G), hg(G);  // x·W + b_in; h·U (+ b_rec)
      for (int g = 0; g < G; ++g) {
        xg[g] = bias[g];
        hg[g] = two_biases ? bias[G + g] : 0;
        for (int f = 0; f < F; ++f) xg[g] += x[(b * T + t) * F + f] * W[f * G + g];
        for (int k = 0; k < H; ++k) hg[g] += h[k] * U[k * G + g];
      }
      std::vector<double> next(H), z(H), rr(H);
      for (int j = 0; j < H; ++j) {
        if (cell.lstm) {
          const double i = cell.gate(xg[j] + hg[j]), f = cell.gate(xg[H + j] + hg[H + j]);
          const double g = cell.act(xg[2 * H + j] + hg[2 * H + j]), o = cell.gate(xg[3 * H + j] + hg[3 * H + j]);
          c[j] = f * c[j] + i * g;
          next[j] = o * cell.act(c[j]);
        } else {
          z[j] = cell.gate(xg[j] + hg[j]);
          rr[j] = cell.gate(xg[H + j] + hg[H + j]);
        }
      }
      if (!cell.lstm) {
        for (int j = 0; j < H; ++j) {
          double recurrent = 0;  // reset after: r·(h·U_n + b); before: (r·h)·U_n
          if (cell.reset_after) {
            recurrent = rr[j] * hg[2 * H + j];
          } else {
            for (int k = 0; k < H; ++k) recurrent += rr[k] * h[k] * U[k * G + 2 * H + j];
          }
          const double n = cell.act(xg[2 * H + j] + recurrent);
          next[j] = z[j] * h[j] + (1 - z[j]) * n;
        }
      }
      h = next;
      for (int j = 0; j < H; ++j) r.out[(b * T + t) * H + j] = h[j];
    }
    for (int j = 0; j < H; ++j) r.h[b * H + j] = h[j], r.c[b * H + j] = c[j];
  }
  return r;
}

struct Variant {
  const char* what;
  nn::CellKind kind;
  nn::CellMath math;
  RefCell ref;
};

std::vector<Variant> recurrent_variants() {
  return {
      {"lstm relu / hard_sigmoid",
       nn::CellKind::lstm,
       {.act = "relu", .recurrent_act = "hard_sigmoid"},
       {.lstm = true, .act = kRelu, .gate = kHardSigmoid}},
      {"lstm sigmoid / tanh",
       nn::CellKind::lstm,
       {.act = "sigmoid", .recurrent_act = "tanh"},
       {.lstm = true, .act = kSigmoid, .gate = kTanh}},
      {"gru softsign / hard_sigmoid",
       nn::CellKind::gru,
       {.act = "softsign", .recurrent_act = "hard_sigmoid"},
       {.act = kSoftsign, .gate = kHardSigmoid}},
      {"gru reset before", nn::CellKind::gru, {.reset_after = false}, {.reset_after = false}},
      {"gru reset before relu / hard_sigmoid",
       nn::CellKind::gru,
       {.act = "relu", .recurrent_act = "hard_sigmoid", .reset_after = false},
       {.act = kRelu, .gate = kHardSigmoid, .reset_after = false}},
      // The default activations by name run unfused: the same as the fused kernels.
      {"lstm tanh / sigmoid by name", nn::CellKind::lstm, {.act = "tanh", .recurrent_act = "sigmoid"}, {.lstm = true}},
      {"gru tanh / sigmoid by name", nn::CellKind::gru, {.act = "tanh", .recurrent_act = "sigmoid"}, {}},
  };
}

nn::Recurrent make_variant_layer(const Variant& v, int64_t units, nn::RecurrentOptions o = {}) {
  o.units = units;
  o.act = v.math.act;
  o.recurrent_act = v.math.recurrent_act;
  o.reset_after = v.math.reset_after;
  return nn::Recurrent(v.kind, std::move(o));
}

TEST(RecurrentVariants, LayersMatchKerasEquationsInAPlainLoop) {
  const int B = 2, T = 4, F = 3, H = 3;
  Generator gen(21);
  for (const Variant& v : recurrent_variants()) {
    nn::Recurrent layer = make_variant_layer(v, H);
    Tensor x = uniform({B, T, F}, -1.5, 1.5, kFloat32, &gen);
    layer(x);
    testing_nn::randomize(layer, 31);
    const nn::RNNResult got = layer.run(x);
    const auto& w = layer.cells()[0];
    const RefOut want = keras_loop(v.ref, as_doubles(x), B, T, F, H, as_doubles(w.kernel),
                                   as_doubles(w.recurrent_kernel), as_doubles(w.bias));
    const std::vector<double> out = as_doubles(got.output), h = as_doubles(got.state[0]);
    ASSERT_EQ(out.size(), want.out.size()) << v.what;
    for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want.out[i], 1e-5) << v.what << " output " << i;
    for (size_t i = 0; i < h.size(); ++i) EXPECT_NEAR(h[i], want.h[i], 1e-5) << v.what << " h " << i;
    if (v.kind == nn::CellKind::lstm) {
      const std::vector<double> c = as_doubles(got.state[1]);
      for (size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(c[i], want.c[i], 1e-5) << v.what << " c " << i;
    }
  }
}

TEST(RecurrentVariants, ResetBeforeGruHasKerasOneRowBias) {
  nn::GRU gru({.units = 4, .reset_after = false});
  gru(zeros({2, 3, 5}));
  EXPECT_EQ(gru.cells()[0].bias.shape(), (Shape{12}));
  EXPECT_EQ(gru.cells()[0].recurrent_kernel.shape(), (Shape{4, 12}));
  nn::GRUCell cell({.units = 4, .reset_after = false});
  cell(zeros({2, 5}));
  EXPECT_EQ(cell.bias.shape(), (Shape{12}));
  // Bidirectional's mirror keeps the options.
  nn::Bidirectional both(nn::GRU({.units = 2, .recurrent_act = "hard_sigmoid", .reset_after = false}));
  both(zeros({1, 3, 5}));
  EXPECT_EQ(both.backward_layer().cells()[0].bias.shape(), (Shape{6}));
  EXPECT_EQ(both.backward_layer().options().recurrent_act.name(), "hard_sigmoid");
}

// The unfused steps, weights and a three-step sequence as float64 inputs.
TEST(RecurrentVariants, GradcheckOfTheUnfusedSteps) {
  Generator gen(4);
  const nn::CellMath smooth[] = {{.act = "softsign", .recurrent_act = "sigmoid"},
                                 {.act = "tanh", .recurrent_act = "sigmoid", .reset_after = false},
                                 {.act = "softsign", .recurrent_act = "tanh", .reset_after = false}};
  for (nn::CellKind kind : {nn::CellKind::lstm, nn::CellKind::gru}) {
    for (const nn::CellMath& math : smooth) {
      if (kind == nn::CellKind::lstm && !math.reset_after) continue;  // a GRU option
      const int64_t F = 2, H = 3, G = nn::gate_count(kind) * H;
      std::vector<Tensor> inputs{uniform({2, 3, F}, -1.0, 1.0, kFloat64, &gen),
                                 uniform({F, G}, -1.0, 1.0, kFloat64, &gen), uniform({H, G}, -1.0, 1.0, kFloat64, &gen),
                                 uniform(nn::cell_bias_shape(kind, H, math.reset_after), -1.0, 1.0, kFloat64, &gen)};
      for (int s = 0; s < nn::state_count(kind); ++s) inputs.push_back(uniform({2, H}, -1.0, 1.0, kFloat64, &gen));
      expect_gradcheck(
          [&](const std::vector<Tensor>& in) {
            std::vector<Tensor> state{in.begin() + 4, in.end()};
            Tensor total;
            for (int64_t t = 0; t < 3; ++t) {
              state = nn::cell_step(kind, nn::input_gates(kind, select(in[0], 1, t), in[1], in[3]), state, in[2], in[3],
                                    math);
              Tensor step = state.size() == 2 ? state[0] * 1.5 + state[1] : state[0];
              total = total.defined() ? total + step * static_cast<double>(t + 1) : step;
            }
            return total;
          },
          inputs);
    }
  }
}

using RecurrentVariantFiles = testing::TempDirTest;

TEST_F(RecurrentVariantFiles, ModelFilesKeepTheOptions) {
  auto x = nn::Input({-1, 5, 3});
  auto a = nn::GRU({.units = 4, .reset_after = false}, "gru_before")(x);
  auto b =
      nn::LSTM({.units = 3, .return_sequences = false, .act = "relu", .recurrent_act = "hard_sigmoid"}, "lstm_relu")(a);
  auto c = nn::GRUCell({.units = 2, .act = "softsign", .reset_after = false}, "cell")(b);
  nn::Model net(x, c, "variants");
  testing_nn::randomize(net, 5);
  const std::string config = nlohmann::json::parse(net.to_json()).dump();
  EXPECT_NE(config.find("\"reset_after\":false"), std::string::npos) << config;
  EXPECT_NE(config.find("\"recurrent_act\":\"hard_sigmoid\""), std::string::npos);
  EXPECT_NE(config.find("\"act\":\"softsign\""), std::string::npos);
  net.save(path("variants.safetensors"));
  auto loaded = nn::Model::load(path("variants.safetensors"));
  EXPECT_EQ(loaded->to_json(), net.to_json());
  const Tensor in = uniform({2, 5, 3}, -1.0, 1.0);
  EXPECT_TRUE(allclose(loaded->run({in})[0], net.run({in})[0], 0, 0));
}

// A config from before the options existed: a GRU of Keras 2's reset_after, sigmoid and tanh.
TEST(RecurrentVariants, ConfigsWithoutTheNewFieldsKeepTodaysBehaviour) {
  auto layer = nn::layer_from_config({{"class", "gru"},
                                      {"name", "old_gru"},
                                      {"config",
                                       {{"units", 3},
                                        {"num_layers", 1},
                                        {"return_sequences", true},
                                        {"dropout", 0},
                                        {"reverse", false},
                                        {"act", ""}}}});
  auto* gru = dynamic_cast<nn::Recurrent*>(layer.get());
  ASSERT_NE(gru, nullptr);
  EXPECT_TRUE(gru->options().reset_after);
  EXPECT_FALSE(gru->options().recurrent_act);
  Tensor x = uniform({2, 4, 2}, -1.0, 1.0);
  (*gru)(x);
  EXPECT_EQ(gru->cells()[0].bias.shape(), (Shape{2, 9}));
  testing_nn::randomize(*gru, 9);
  const auto& w = gru->cells()[0];
  const RefOut want = keras_loop({}, as_doubles(x), 2, 4, 2, 3, as_doubles(w.kernel), as_doubles(w.recurrent_kernel),
                                 as_doubles(w.bias));
  const std::vector<double> out = as_doubles((*gru)(x));
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want.out[i], 1e-5) << i;
}

TEST(RecurrentVariants, ABiasOfTheOtherGruFormIsRefused) {
  const Tensor x_gates = zeros({2, 9}), h = zeros({2, 3}), u = zeros({3, 9});
  expect_error(
      [&] {
        nn::cell_step(nn::CellKind::gru, x_gates, {h}, u, zeros({2, 9}), {.reset_after = false});
      },
      {"reset_after = false", "[9]", "[2, 9]"});
  expect_error([&] { nn::cell_step(nn::CellKind::gru, x_gates, {h}, u, zeros({9})); },
               {"reset_after = true", "[2, 9]", "[9]"});
  expect_error([] { nn::LSTM({.units = 3, .recurrent_act = "no_such_activation"}); }, {"no_such_activation"});
}

}  // namespace
}  // namespace strata
