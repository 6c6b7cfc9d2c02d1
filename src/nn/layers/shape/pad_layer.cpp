#include "strata/nn/layers/shape.hpp"

#include "strata/nn/option_table.hpp"
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
    STRATA_CHECK(before >= 0 && after >= 0 && before <= n && after <= n, "pad_symmetric: axis ", std::to_string(axis),
                 " of size ", std::to_string(n), " cannot be padded by {", std::to_string(before), ", ",
                 std::to_string(after), "} (needs 0 <= pad <= size)");
    out = concat({flip(narrow(out, axis, 0, before), {axis}), out, flip(narrow(out, axis, n - after, after), {axis})},
                 axis);
  }
  return out;
}

namespace {

std::vector<std::vector<int64_t>> pad_lists(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::vector<std::vector<int64_t>> out;
  for (auto [before, after] : pairs) out.push_back({before, after});
  return out;
}

}  // namespace

PadLayer::PadLayer(Options options, std::string name)
    : Layer("padlayer", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  for (const auto& p : options_.padding)
    expect(p.size() == 2, "padding must be {before, after} pairs, got a list of " + std::to_string(p.size()));
}

PadLayer::PadLayer(std::vector<std::pair<int64_t, int64_t>> padding, PadLayerMode mode, double constant_value,
                   std::string name)
    : PadLayer(Options{.padding = pad_lists(padding), .mode = mode, .constant_value = constant_value},
               std::move(name)) {}

Tensor PadLayer::forward(const Tensor& x) {
  const auto& padding = options_.padding;
  expect(padding.size() <= static_cast<size_t>(x.dim()),
         "has " + std::to_string(padding.size()) + " padding pairs but got input of shape " + x.shape().str());
  std::vector<std::pair<int64_t, int64_t>> pads;
  for (const auto& p : padding) pads.emplace_back(p[0], p[1]);
  switch (options_.mode) {
    case PadLayerMode::symmetric:
      return pad_symmetric(x, pads);
    case PadLayerMode::reflect:
      return pad(x, pads, PadMode::reflect);
    case PadLayerMode::replicate:
      return pad(x, pads, PadMode::replicate);
    case PadLayerMode::constant:
      break;
  }
  return pad(x, pads, PadMode::constant, options_.constant_value);
}

STRATA_ENUM_OPTION(PadLayerMode, {PadLayerMode::constant, "constant"}, {PadLayerMode::reflect, "reflect"},
                   {PadLayerMode::symmetric, "symmetric"}, {PadLayerMode::replicate, "replicate"});
STRATA_DEFINE_OPTIONS(PadLayerOptions, STRATA_PAD_LAYER_OPTIONS)
STRATA_LAYER("padlayer", PadLayer);

}  // namespace strata::nn
