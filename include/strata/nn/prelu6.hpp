// PRelu6 and PTRelu6 (TensorLayer's): ReLU6 with learned slopes, per channel (the last axis)
// or shared. PRelu6: alpha * x below 0, x in [0, 6], 6 above. PTRelu6 adds a learned slope
// above 6: 6 + alpha_high * (x - 6), and alpha_low below 0.
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

Tensor prelu6(const Tensor& x, const Tensor& alpha);
Tensor ptrelu6(const Tensor& x, const Tensor& alpha_low, const Tensor& alpha_high);

class PRelu6 : public Layer {
 public:
  STRATA_LAYER_MOVABLE(PRelu6)
  void get_config(nlohmann::json& config) const override;
  explicit PRelu6(bool channel_shared = false, Initializer a_init = truncated_normal(0.0, 0.05),
                  std::string name = "");
  Tensor alpha;  // [C] or [1]

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  bool channel_shared_;
  int64_t channels_ = -1;
  Initializer a_init_;
};

class PTRelu6 : public Layer {
 public:
  STRATA_LAYER_MOVABLE(PTRelu6)
  void get_config(nlohmann::json& config) const override;
  explicit PTRelu6(bool channel_shared = false, Initializer a_init = truncated_normal(0.0, 0.05),
                   std::string name = "");
  Tensor alpha_low, alpha_high;  // [C] or [1] each

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  bool channel_shared_;
  int64_t channels_ = -1;
  Initializer a_init_;
};

}  // namespace strata::nn
