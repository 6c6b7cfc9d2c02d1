// Shuffle (TensorLayer's; ShuffleNet's channel shuffle): the C channels of a channels-last
// input, seen as [groups, C / groups], are transposed to [C / groups, groups], so output channel
// k * groups + g is input channel g * (C / groups) + k.
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

// The functional form, for any rank >= 1 with the channels last.
Tensor channel_shuffle(const Tensor& x, int64_t groups);

class Shuffle : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Shuffle)
  explicit Shuffle(int64_t groups, std::string name = "");
  void get_config(nlohmann::json& config) const override;

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int64_t groups_;
};

}  // namespace strata::nn
