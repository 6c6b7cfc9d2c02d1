// Models and weights shared by the ONNX export and import tests.
#pragma once
#include <algorithm>
#include <cmath>

#include <strata/strata.hpp>

namespace strata::testing {

// Batch norms with moving statistics other than 0 and 1, so that the export of them is tested.
inline void randomize_batch_norms(nn::Model& model) {
  Generator gen(7);
  for (auto& [name, t] : model.named_weights()) {
    const bool var = name.ends_with("/moving_var"), mean = name.ends_with("/moving_mean") || name.ends_with("/beta");
    if (!var && !mean && !name.ends_with("/gamma")) continue;
    Tensor r = rand(t.shape(), {}, &gen);
    float* d = t.data<float>();
    const std::vector<float> v = r.to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) d[i] = var ? 0.5f + v[i] : mean ? v[i] - 0.5f : 0.5f + v[i];
  }
}

// He-scaled filters (std sqrt(2 / fan-in)), so that deep zoo models' outputs stay large enough
// to compare: their default initializers shrink a random image to nothing over 20 layers.
inline void he_scale(nn::Model& model) {
  Generator gen(3);
  for (auto& [name, t] : model.named_weights()) {
    if (!name.ends_with("/W") || t.dim() < 2) continue;
    const nn::Layer& layer = model.get_layer(name.substr(0, name.find('/')));
    const int64_t fan_out = layer.kind() == "depthwiseconv2d" ? t.size(-1) * t.size(-2) : t.size(-1);
    const double scale = std::sqrt(2.0 * fan_out / static_cast<double>(t.numel()));
    const std::vector<float> v = randn(t.shape(), {}, &gen).to_vector<float>();
    float* d = t.data<float>();
    for (size_t i = 0; i < v.size(); ++i) d[i] = static_cast<float>(v[i] * scale);
  }
}

// Normal random values for the weights whose names end in one of `suffixes` (biases, gammas,
// betas), so that a swapped or misplaced parameter changes the outputs.
inline void randomize_weights(nn::Model& model, const std::vector<std::string>& suffixes, uint64_t seed) {
  Generator gen(seed);
  for (auto& named : model.named_weights()) {  // not a structured binding: clang 14 cannot capture one
    const std::string& n = named.first;
    Tensor& t = named.second;
    if (std::none_of(suffixes.begin(), suffixes.end(), [&](const std::string& s) { return n.ends_with(s); })) continue;
    const std::vector<float> v = randn(t.shape(), {}, &gen).to_vector<float>();
    std::copy(v.begin(), v.end(), t.data<float>());
  }
}

inline Tensor images(const Shape& shape) {
  Generator gen(1);
  return randn(shape, {}, &gen);
}


// Each layer class the exporter knows, with both layouts meeting at merges and every activation
// name; `merge_act` is the first merge's (gelu exports as Erf, which the import lacks).
inline nn::Model coverage_model(const std::string& merge_act = "gelu") {
  using namespace nn;
  auto x = Input({-1, 12, 10, 3}, "image");
  auto a = Conv2d(8, {3, 3}, "lrelu0.1", ConvOptions{.stride = {2}, .padding = Padding::same()})(x);
  a = BatchNorm(0.9, 1e-3, "relu6")(a);
  auto b = DepthwiseConv2d({3, 3}, "swish", ConvOptions{.padding = Padding::explicit_({1, 0}, {1, 2})}, 2)(x);
  b = MeanPool2d({2, 2}, {.stride = {2}, .padding = Padding::same()})(b);
  b = Conv2d(8, {1, 1}, "hard_sigmoid")(b);
  auto c = Elementwise("add", merge_act)({a, b});
  auto d = Elementwise("multiply", "mish")({a, c});
  auto e = Elementwise("mean", "elu")({c, d});
  auto f = Concat(-1)({e, ZeroPad2d(PadPairs{{0, 0}, {0, 0}})(d)});
  f = MaxPool2d({3, 3}, {.stride = {1}, .padding = Padding::valid()})(f);
  f = DeConv2d(4, {3, 3}, "selu", ConvOptions{.stride = {2}, .padding = Padding::same()})(f);
  f = DeConv2d(4, {2, 2}, "softplus", ConvOptions{.stride = {1}, .padding = Padding::valid()})(f);
  auto g = GlobalMaxPool2d()(f);
  auto h = Reshape({80, 4})(ZeroPad2d(PadPairs{{1, 0}, {0, 1}})(f));  // [N, 10 * 8, 4]
  h = Transpose({0, 2, 1})(h);
  auto h1 = Conv1d(5, {3}, "softsign", ConvOptions{.padding = Padding::valid()})(h);
  h1 = GlobalMeanPool1d()(BatchNorm(0.9, 1e-5, "hard_tanh")(h1));
  auto out = Dense(7, "softmax")(Concat(-1)({g, h1}));
  auto out2 = Dense(3, "tanh")(Dropout(0.5)(Dense(5, "sigmoid")(Flatten()(e))));
  return Model(std::vector<Symbol>{x}, std::vector<Symbol>{out, out2}, "coverage");
}

// LSTM (two stacked layers), GRU read backwards, SimpleRNN giving its last output only, a
// bidirectional LSTM's last outputs, with
// biases away from zero (the GRU's recurrent half included), so that their layout is checked.
inline nn::Model recurrent_model() {
  auto x = nn::Input({-1, 6, 4}, "sequence");
  auto h = nn::LSTM(5, {.num_layers = 2})(x);
  h = nn::GRU(4, {.reverse = true})(h);
  auto y = nn::SimpleRNN(3, {.return_sequences = false})(h);
  auto z = nn::Bidirectional(nn::LSTM(2, {.return_sequences = false}))(h);
  nn::Model net(std::vector<nn::Symbol>{x}, std::vector<nn::Symbol>{h, y, z}, "recurrent");
  randomize_weights(net, {"bias"}, 11);
  return net;
}

// An InstanceNorm and a PRelu per channel after a convolution, a shared PRelu after a flatten,
// then a Scale.
inline nn::Model prelu_model() {
  auto x = nn::Input({-1, 6, 5, 3}, "image");
  auto n = nn::InstanceNorm("tanh", 1e-3, "instance_norm")(nn::Conv2d(4, {3, 3})(x));
  auto a = nn::PRelu(false, -1, nn::random_uniform(0.1, 0.5), "prelu_channels")(n);
  auto b = nn::Scale(1.5, "scale")(nn::PRelu(true, -1, nn::constant_init(0.3), "prelu_shared")(nn::Flatten()(a)));
  nn::Model net(x, b, "prelu_scale");
  randomize_weights(net, {"gamma", "beta"}, 13);
  return net;
}

// A pre-norm encoder stack with gelu and a final norm, a post-norm encoder layer with relu,
// cross-attention between the two and a LayerNorm; decoders over the encoder's output as
// memory: a post-norm stack with a final norm, a pre-norm layer.
inline nn::Model transformer_model() {
  auto x = nn::Input({-1, 5, 8}, "tokens");
  nn::TransformerOptions pre{.dim_feedforward = 16, .activation = "gelu", .norm_first = true};
  nn::TransformerOptions post{.dim_feedforward = 12};
  auto a = nn::TransformerEncoder(2, 8, 2, pre, true, "encoder")(x);
  auto b = nn::TransformerEncoderLayer(8, 4, post, "encoder_layer")(x);
  auto c = nn::MultiheadAttention(8, 2, 0.1, true, "cross")({a, b});
  auto y = nn::LayerNorm("tanh", 1e-5, -1, -1, true, true, "norm")(c);
  auto d = nn::TransformerDecoder(2, 8, 2, post, true, "decoder")({b, a});
  d = nn::TransformerDecoderLayer(8, 2, pre, "decoder_layer")({d, a});
  nn::Model net(std::vector<nn::Symbol>{x}, std::vector<nn::Symbol>{y, a, d}, "transformer");
  randomize_weights(net, {"gamma", "beta"}, 17);  // away from 1 and 0
  return net;
}

}  // namespace strata::testing
