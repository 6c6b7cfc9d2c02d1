// PadLayer (TensorLayer's, tf.pad): pads every axis of its input, the batch axis included,
// by {before, after} pairs, with a constant, or mirrored without (reflect) or with (symmetric)
// the edge element, or the edge repeated (replicate).
#pragma once
#include <utility>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/combine.hpp"

namespace strata::nn {

enum class PadLayerMode { constant, reflect, symmetric, replicate };

// Symmetric padding of the last pads.size() axes (tf.pad's SYMMETRIC, NumPy's "symmetric"):
// [a b c d] by 2 -> b a [a b c d] d c; needs pad <= size.
Tensor pad_symmetric(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads);

#define STRATA_PAD_LAYER_OPTIONS(X)                                                                 \
  X(std::vector<std::vector<int64_t>>, padding, {}, at_least(0),                                    \
    "{before, after} pairs, one per input axis (the batch axis included); fewer pad the last axes") \
  X(PadLayerMode, mode, PadLayerMode::constant, any(), "how the border is filled") \
  X(double, constant_value, 0, any(), "the value padded in (mode constant)")
STRATA_OPTIONS(PadLayerOptions, STRATA_PAD_LAYER_OPTIONS);

class PadLayer : public Layer {
 public:
  STRATA_LAYER_MOVABLE(PadLayer)
  using Options = PadLayerOptions;
  explicit PadLayer(Options options, std::string name = "");
  // One pair per input axis (TensorLayer's `padding`); fewer pads the last axes.
  explicit PadLayer(std::vector<std::pair<int64_t, int64_t>> padding, PadLayerMode mode = PadLayerMode::constant,
                    double constant_value = 0, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
