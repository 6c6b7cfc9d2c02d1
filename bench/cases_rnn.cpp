// Recurrent layers: a 2-layer LSTM with the PTB "small" language model's shapes (batch 20,
// 35 steps, 200 inputs and units), Strata's nn::LSTM against torch::nn::LSTM (batch_first).
#include <memory>

#include "cases.hpp"
#include "strata/nn/layers/recurrent.hpp"
#include "strata/strata.hpp"

namespace bench {
namespace {

constexpr int64_t kBatch = 20, kSteps = 35, kInput = 200, kUnits = 200, kLayers = 2;

// The same weights on both sides. Keras's gate order (i, f, c, o) is PyTorch's (i, f, g, o);
// PyTorch keeps [4 * units, in] where Strata keeps [in, 4 * units], and has a second bias.
struct TwinLstm {
  std::shared_ptr<strata::nn::LSTM> strata_lstm =
      std::make_shared<strata::nn::LSTM>(kUnits, strata::nn::RNNOptions{.num_layers = kLayers});
  torch::nn::LSTM torch_lstm{torch::nn::LSTMOptions(kInput, kUnits).num_layers(kLayers).batch_first(true)};
  strata::Tensor x = strata::uniform({kBatch, kSteps, kInput}, -1.0, 1.0);
  torch::Tensor tx = to_torch(x);

  TwinLstm() {
    (*strata_lstm)(x);
    torch::NoGradGuard g;
    for (int64_t k = 0; k < kLayers; ++k) {
      const auto& w = strata_lstm->cells()[k];
      const std::string l = "_l" + std::to_string(k);
      torch_lstm->named_parameters()["weight_ih" + l].copy_(to_torch(w.kernel).t());
      torch_lstm->named_parameters()["weight_hh" + l].copy_(to_torch(w.recurrent_kernel).t());
      torch_lstm->named_parameters()["bias_ih" + l].copy_(to_torch(w.bias));
      torch_lstm->named_parameters()["bias_hh" + l].zero_();
    }
  }
};

double forward_flops() {
  double f = 0;
  for (int64_t k = 0; k < kLayers; ++k) f += 2.0 * kBatch * kSteps * ((k == 0 ? kInput : kUnits) + kUnits) * 4 * kUnits;
  return f;
}

Case lstm_train() {
  auto twin = std::make_shared<TwinLstm>();
  Case c{"LSTM PTB-small fwd+bwd", "2x200 LSTM, batch 20, 35 steps: output.sum().backward()", 3 * forward_flops()};
  c.strata.run = [=] {
    for (strata::Tensor w : twin->strata_lstm->trainable_weights()) w.zero_grad();
    (*twin->strata_lstm)(twin->x).sum().backward();
  };
  c.torch.run = [=] {
    for (auto& p : twin->torch_lstm->parameters()) p.mutable_grad() = torch::Tensor();
    std::get<0>(twin->torch_lstm->forward(twin->tx)).sum().backward();
  };
  c.max_diff = [=] {
    strata::NoGradGuard g;
    torch::NoGradGuard tg;
    return max_rel_diff((*twin->strata_lstm)(twin->x), std::get<0>(twin->torch_lstm->forward(twin->tx)));
  };
  return c;
}

Case lstm_inference() {
  auto twin = std::make_shared<TwinLstm>();
  Case c{"LSTM PTB-small forward", "2x200 LSTM, batch 20, 35 steps, without grad", forward_flops()};
  c.strata.run = [=] { strata::NoGradGuard g; (*twin->strata_lstm)(twin->x); };
  c.torch.run = [=] { torch::InferenceMode g; twin->torch_lstm->forward(twin->tx); };
  return c;
}

}  // namespace

std::vector<Case> rnn_cases() { return {lstm_train(), lstm_inference()}; }

}  // namespace bench
