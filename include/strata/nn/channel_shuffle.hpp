// Shuffle (TensorLayer's; ShuffleNet's channel shuffle): the C channels of a channels-last
// input, seen as [groups, C / groups], are transposed to [C / groups, groups], so output channel
// k * groups + g is input channel g * (C / groups) + k.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// The functional form, for any rank >= 1 with the channels last.
Tensor channel_shuffle(const Tensor& x, int64_t groups);

#define STRATA_SHUFFLE_OPTIONS(X) \
  X(int64_t, groups, 0, at_least(1), "channel groups; the channels (the last axis) must be divisible by it")
STRATA_OPTIONS(ShuffleOptions, STRATA_SHUFFLE_OPTIONS);

class Shuffle : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Shuffle)
  using Options = ShuffleOptions;
  explicit Shuffle(Options options, std::string name = "");
  explicit Shuffle(int64_t groups, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
