// Conv2d on NHWC inputs (TensorLayer's Conv2d): W is [kh, kw, in, n_filter], in inferred.
// Padding defaults to SAME, as in TensorLayer.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

class Conv2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Conv2d)
  void get_config(nlohmann::json& config) const override;
  Conv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {}, ConvOptions options = same_padding(),
         std::string name = "", int64_t in_channels = -1, bool use_bias = true, Initializer w_init = glorot_uniform(),
         Initializer b_init = zeros_init());
  Tensor W, b;
  static ConvOptions same_padding() { return ConvOptions{.padding = Padding::same()}; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int64_t n_filter_, in_channels_;
  SpatialSizes filter_size_;
  Activation act_;
  ConvOptions options_;
  bool use_bias_;
  Initializer w_init_, b_init_;
};

}  // namespace strata::nn
