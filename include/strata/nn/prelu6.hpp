// PRelu6 and PTRelu6 (TensorLayer's): ReLU6 with learned slopes, per channel (the last axis)
// or shared. PRelu6: alpha * x below 0, x in [0, 6], 6 above. PTRelu6 adds a learned slope
// above 6: 6 + alpha_high * (x - 6), and alpha_low below 0.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

Tensor prelu6(const Tensor& x, const Tensor& alpha);
Tensor ptrelu6(const Tensor& x, const Tensor& alpha_low, const Tensor& alpha_high);

// The options of PRelu6 and PTRelu6 (the same keys).
#define STRATA_PRELU6_OPTIONS(X)                                                                         \
  X(bool, channel_shared, false, any(), "one slope for every channel ([1]) instead of one per channel ([C])") \
  X(Initializer, a_init, (truncated_normal(0.0, 0.05)), not_saved(), "initializer of the slopes")
STRATA_OPTIONS(PRelu6Options, STRATA_PRELU6_OPTIONS);

class PRelu6 : public Layer {
 public:
  using Options = PRelu6Options;
  STRATA_LAYER_MOVABLE(PRelu6)
  explicit PRelu6(Options options, std::string name = "");
  explicit PRelu6(bool channel_shared = false, Initializer a_init = truncated_normal(0.0, 0.05),
                  std::string name = "");
  const Options& options() const { return options_; }
  Tensor alpha;  // [C] or [1]

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int64_t channels_ = -1;
};

class PTRelu6 : public Layer {
 public:
  using Options = PRelu6Options;
  STRATA_LAYER_MOVABLE(PTRelu6)
  explicit PTRelu6(Options options, std::string name = "");
  explicit PTRelu6(bool channel_shared = false, Initializer a_init = truncated_normal(0.0, 0.05),
                   std::string name = "");
  const Options& options() const { return options_; }
  Tensor alpha_low, alpha_high;  // [C] or [1] each

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int64_t channels_ = -1;
};

}  // namespace strata::nn
