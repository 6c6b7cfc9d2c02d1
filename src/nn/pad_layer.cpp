#include "strata/nn/pad_layer.hpp"

#include "strata/nn/layer_config.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor pad_symmetric(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads) {
  const int64_t first = x.dim() - static_cast<int64_t>(pads.size());
  STRATA_CHECK(first >= 0, "pad_symmetric: ", std::to_string(pads.size()), " pad pairs for a tensor of shape ",
               x.shape().str());
  Tensor out = x;
  for (size_t i = 0; i < pads.size(); ++i) {
    const int64_t axis = first + static_cast<int64_t>(i), n = out.size(axis);
    auto [before, after] = pads[i];
    STRATA_CHECK(before >= 0 && after >= 0 && before <= n && after <= n, "pad_symmetric: axis ",
                 std::to_string(axis), " of size ", std::to_string(n), " cannot be padded by {", std::to_string(before),
                 ", ", std::to_string(after), "} (needs 0 <= pad <= size)");
    out = concat({flip(narrow(out, axis, 0, before), {axis}), out, flip(narrow(out, axis, n - after, after), {axis})},
                 axis);
  }
  return out;
}

PadLayer::PadLayer(std::vector<std::pair<int64_t, int64_t>> padding, PadLayerMode mode, double constant_value,
                   std::string name)
    : Layer("padlayer", std::move(name)), padding_(std::move(padding)), mode_(mode), value_(constant_value) {
  for (auto [b, a] : padding_) expect(b >= 0 && a >= 0, "padding must be non-negative");
}

Tensor PadLayer::forward(const Tensor& x) {
  expect(padding_.size() <= static_cast<size_t>(x.dim()), "has " + std::to_string(padding_.size()) +
                                                              " padding pairs but got input of shape " + x.shape().str());
  switch (mode_) {
    case PadLayerMode::symmetric: return pad_symmetric(x, padding_);
    case PadLayerMode::reflect: return pad(x, padding_, PadMode::reflect);
    case PadLayerMode::replicate: return pad(x, padding_, PadMode::replicate);
    case PadLayerMode::constant: break;
  }
  return pad(x, padding_, PadMode::constant, value_);
}


namespace {
constexpr const char* kModeNames[] = {"constant", "reflect", "symmetric", "replicate"};
}  // namespace

void PadLayer::get_config(nlohmann::json& c) const {
  c = {{"padding", padding_}, {"mode", kModeNames[static_cast<int>(mode_)]}, {"constant_value", value_}};
}

STRATA_LAYER_CLASS("padlayer", [](const nlohmann::json& c, const std::string& name) {
  const std::string mode = c.at("mode").get<std::string>();
  for (int m = 0; m < 4; ++m)
    if (mode == kModeNames[m])
      return std::make_shared<PadLayer>(c.at("padding").get<std::vector<std::pair<int64_t, int64_t>>>(),
                                        static_cast<PadLayerMode>(m), c.at("constant_value").get<double>(), name);
  throw Error("mode: expected constant, reflect, symmetric or replicate, got '" + mode + "'");
});

}  // namespace strata::nn
