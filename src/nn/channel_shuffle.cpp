#include "strata/nn/channel_shuffle.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor channel_shuffle(const Tensor& x, int64_t groups) {
  STRATA_CHECK(groups > 0 && x.dim() >= 1 && x.shape().back() % groups == 0, "channel_shuffle: expected a [..., C] input with C divisible by groups ",
               std::to_string(groups), ", got ", x.shape().str());
  Shape split = x.shape();
  const int64_t c = split.back();
  split[static_cast<int>(split.size()) - 1] = groups;
  split.push_back(c / groups);
  return reshape(transpose(reshape(x, split), -1, -2), x.shape());
}

Shuffle::Shuffle(int64_t groups, std::string name) : Layer("shuffle", std::move(name)), groups_(groups) {
  expect(groups > 0, "groups must be positive, got " + std::to_string(groups));
}

Tensor Shuffle::forward(const Tensor& x) {
  expect(x.dim() >= 1 && x.shape().back() % groups_ == 0,
         "expected channels (the last axis) divisible by " + std::to_string(groups_) + ", got " + x.shape().str());
  return channel_shuffle(x, groups_);
}

void Shuffle::get_config(nlohmann::json& c) const { c = {{"groups", groups_}}; }

STRATA_LAYER_CLASS("shuffle", [](const nlohmann::json& c, const std::string& name) {
  return std::make_shared<Shuffle>(c.at("groups").get<int64_t>(), name);
});

}  // namespace strata::nn
