// PadLayer (TensorLayer's, tf.pad): pads every axis of its input, the batch axis included,
// by {before, after} pairs, with a constant, or mirrored without (reflect) or with (symmetric)
// the edge element, or the edge repeated (replicate).
#pragma once
#include <utility>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/ops/combine.hpp"

namespace strata::nn {

enum class PadLayerMode { constant, reflect, symmetric, replicate };

// Symmetric padding of the last pads.size() axes (tf.pad's SYMMETRIC, NumPy's "symmetric"):
// [a b c d] by 2 -> b a [a b c d] d c; needs pad <= size.
Tensor pad_symmetric(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads);

class PadLayer : public Layer {
 public:
  STRATA_LAYER_MOVABLE(PadLayer)
  void get_config(nlohmann::json& config) const override;
  // One pair per input axis (TensorLayer's `padding`); fewer pads the last axes.
  explicit PadLayer(std::vector<std::pair<int64_t, int64_t>> padding, PadLayerMode mode = PadLayerMode::constant,
                    double constant_value = 0, std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<std::pair<int64_t, int64_t>> padding_;
  PadLayerMode mode_;
  double value_;
};

}  // namespace strata::nn
