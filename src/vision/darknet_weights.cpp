// darknet's .weights files: a header, then every [convolutional] layer's floats in cfg order,
// read into (and written from) the layers the cfg reader built.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"
#include "strata/vision/darknet.hpp"

namespace strata::vision {
namespace {

static_assert(sizeof(float) == 4, "darknet's files hold 32-bit floats");

// One [convolutional] layer's tensors in the order the file holds them: biases (batch norm's
// beta, else the convolution's b), then with batch norm scales, rolling mean, rolling variance;
// then the weights.
struct ConvTensors {
  std::vector<Tensor> vectors;
  Tensor W;  // Strata's [kh, kw, in / groups, out]
};

std::vector<ConvTensors> conv_tensors(const DarknetNetwork& net) {
  STRATA_CHECK(net.model != nullptr, "darknet weights: the network has no model");
  STRATA_CHECK(net.conv_layers.size() == net.conv_batch_normalize.size(),
               "darknet weights: the network's conv_layers and conv_batch_normalize differ in length");
  std::vector<ConvTensors> out;
  for (size_t k = 0; k < net.conv_layers.size(); ++k) {
    const std::string& name = net.conv_layers[k];
    auto* conv = dynamic_cast<nn::Conv2d*>(net.model->find(name));
    STRATA_CHECK(conv != nullptr, "darknet weights: the model has no convolution named '", name, "'");
    ConvTensors t{{}, conv->W};
    if (net.conv_batch_normalize[k]) {
      const std::string bn_name = "bn_" + name.substr(name.find('_') + 1);
      auto* bn = dynamic_cast<nn::BatchNorm*>(net.model->find(bn_name));
      STRATA_CHECK(bn != nullptr, "darknet weights: the model has no batch norm named '", bn_name, "'");
      t.vectors = {bn->beta, bn->gamma, bn->moving_mean, bn->moving_var};
    } else {
      STRATA_CHECK(conv->b.defined(), "darknet weights: convolution '", name, "' has no bias");
      t.vectors = {conv->b};
    }
    out.push_back(std::move(t));
  }
  return out;
}

int64_t float_count(const std::vector<ConvTensors>& convs) {
  int64_t n = 0;
  for (const ConvTensors& c : convs) {
    for (const Tensor& v : c.vectors) n += v.numel();
    n += c.W.numel();
  }
  return n;
}

// darknet's [O, I / groups, kh, kw] and Strata's [kh, kw, I / groups, O].
constexpr int64_t kFromDarknet[] = {2, 3, 1, 0};
constexpr int64_t kToDarknet[] = {3, 2, 0, 1};

}  // namespace

void load_darknet_weights(const DarknetNetwork& net, const std::string& path) {
  const std::vector<ConvTensors> convs = conv_tensors(net);
  std::ifstream in(path, std::ios::binary);
  STRATA_CHECK(in.good(), "darknet weights: cannot open ", path);
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  STRATA_CHECK(!ec, "darknet weights: cannot read the size of ", path);
  int32_t version[3] = {0, 0, 0};
  STRATA_CHECK(size >= sizeof(version) && in.read(reinterpret_cast<char*>(version), sizeof(version)),
               "darknet weights: ", path, " is ", size, " bytes, shorter than the 12-byte header");
  // `seen` (images trained on) is 64-bit from version 0.2 on, as darknet's load_weights reads it.
  const int64_t major = version[0], minor = version[1];
  const uintmax_t header = sizeof(version) + ((major * 10 + minor >= 2 && major < 1000 && minor < 1000) ? 8 : 4);
  const int64_t expected = float_count(convs);
  STRATA_CHECK(size >= header && (size - header) == static_cast<uintmax_t>(expected) * 4, "darknet weights: ", path,
               " (version ", major, ".", minor, ".", version[2], ") should hold ", expected,
               " floats after its header, for the cfg's ", convs.size(), " convolutions; it holds ",
               size >= header ? (size - header) / 4 : 0, (size >= header && (size - header) % 4 ? " and a part" : ""));
  in.seekg(static_cast<std::streamoff>(header));
  NoGradGuard no_grad;
  std::vector<float> values;
  auto read = [&](Tensor& dst, const Shape& file_shape) {
    values.resize(static_cast<size_t>(file_shape.numel()));
    STRATA_CHECK(in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * 4)),
                 "darknet weights: ", path, " ended early");
    Tensor t = from_vector(values, file_shape);
    copy_(dst, file_shape.size() == 4 ? permute(t, Shape(std::vector<int64_t>(kFromDarknet, kFromDarknet + 4))) : t);
  };
  for (ConvTensors c : convs) {
    for (Tensor& v : c.vectors) read(v, v.shape());
    const Shape& w = c.W.shape();
    read(c.W, Shape{w[3], w[2], w[0], w[1]});
  }
}

void save_darknet_weights(const DarknetNetwork& net, const std::string& path) {
  const std::vector<ConvTensors> convs = conv_tensors(net);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  STRATA_CHECK(out.good(), "darknet weights: cannot write ", path);
  // Version 0.2.0 (AlexeyAB's), with `seen` 64-bit: no images seen.
  const int32_t version[3] = {0, 2, 0};
  const int64_t seen = 0;
  out.write(reinterpret_cast<const char*>(version), sizeof(version));
  out.write(reinterpret_cast<const char*>(&seen), sizeof(seen));
  auto write = [&](const Tensor& t) {
    const std::vector<float> values = contiguous(t).to_vector<float>();
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  };
  for (const ConvTensors& c : convs) {
    for (const Tensor& v : c.vectors) write(v);
    write(permute(c.W, Shape(std::vector<int64_t>(kToDarknet, kToDarknet + 4))));
  }
  out.close();
  STRATA_CHECK(out.good(), "darknet weights: writing ", path, " failed");
}

}  // namespace strata::vision
