// Activation layers: a named activation as a layer, the learned-slope ReLUs (PRelu, PRelu6,
// PTRelu6), a learned scale, and TensorLayer's fixed-slope activation functions.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

// Activations for layers: any function of a tensor, or a name as TensorLayer spells it
// ("relu", "lrelu0.2", "tanh", "sigmoid", "softmax", "linear", ...).
namespace strata::nn {

using ActivationFn = std::function<Tensor(const Tensor&)>;

// What a layer's `act` argument accepts: nothing (identity), a function, or a name.
class Activation {
 public:
  Activation() = default;
  Activation(ActivationFn fn) : fn_(std::move(fn)) {}  // NOLINT: implicit by design
  // nn::relu, nn::tanh, ... keep their names (for saved models); other pointers are unnamed.
  Activation(Tensor (*fn)(const Tensor&));  // NOLINT
  // A built-in name or a function registered with nn::register_function (nn/functions.hpp).
  Activation(const char* name);                                      // NOLINT
  Activation(const std::string& name) : Activation(name.c_str()) {}  // NOLINT
  Tensor operator()(const Tensor& x) const { return fn_ ? fn_(x) : x; }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  // The name it was made from ("" for the identity and for unnamed functions).
  const std::string& name() const { return name_; }

 private:
  ActivationFn fn_;
  std::string name_;
};

// The functional activations under nn:: so that `nn::Dense(10, nn::relu)` reads naturally.
Tensor relu(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor softmax(const Tensor& x);     // over the last axis
Tensor leaky_relu(const Tensor& x);  // slope 0.2, TensorLayer's lrelu

}  // namespace strata::nn

// Small layers with one trainable factor (TensorLayer's PRelu and Scale).
namespace strata::nn {

#define STRATA_PRELU_OPTIONS(X)                                                                               \
  X(bool, channel_shared, false, any(), "one slope for every channel ([1]) instead of one per channel ([C])") \
  X(int64_t, in_channels, -1, at_least(-1), "channels C (the last axis); -1: inferred from the first input")  \
  X(Initializer, a_init, (truncated_normal(0.0, 0.05)), not_saved(), "initializer of alpha")
STRATA_OPTIONS(PReluOptions, STRATA_PRELU_OPTIONS);

// Parametric ReLU: max(x, 0) + alpha * min(x, 0), alpha learned per channel (the last axis;
// "alpha" [C]) or shared ([1]).
class PRelu : public Layer {
 public:
  using Options = PReluOptions;
  STRATA_LAYER_MOVABLE(PRelu)
  explicit PRelu(Options options, std::string name = "");
  explicit PRelu(bool channel_shared = false, int64_t in_channels = -1,
                 Initializer a_init = truncated_normal(0.0, 0.05), std::string name = "");
  const Options& options() const { return options_; }
  Tensor alpha;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// The functional form; alpha broadcasts against x.
Tensor prelu(const Tensor& x, const Tensor& alpha);

#define STRATA_SCALE_OPTIONS(X) X(double, init_scale, 0.05, any(), "the factor's initial value")
STRATA_OPTIONS(ScaleOptions, STRATA_SCALE_OPTIONS);

// x times one learned scalar ("scale" [1], starting at init_scale).
class Scale : public Layer {
 public:
  using Options = ScaleOptions;
  STRATA_LAYER_MOVABLE(Scale)
  explicit Scale(Options options, std::string name = "");
  explicit Scale(double init_scale = 0.05, std::string name = "")
      : Scale(Options{.init_scale = init_scale}, std::move(name)) {}
  const Options& options() const { return options_; }
  Tensor scale;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// PRelu6 and PTRelu6 (TensorLayer's): ReLU6 with learned slopes, per channel (the last axis)
// or shared. PRelu6: alpha * x below 0, x in [0, 6], 6 above. PTRelu6 adds a learned slope
// above 6: 6 + alpha_high * (x - 6), and alpha_low below 0.
namespace strata::nn {

Tensor prelu6(const Tensor& x, const Tensor& alpha);
Tensor ptrelu6(const Tensor& x, const Tensor& alpha_low, const Tensor& alpha_high);

// The options of PRelu6 and PTRelu6 (the same keys).
#define STRATA_PRELU6_OPTIONS(X)                                                                              \
  X(bool, channel_shared, false, any(), "one slope for every channel ([1]) instead of one per channel ([C])") \
  X(Initializer, a_init, (truncated_normal(0.0, 0.05)), not_saved(), "initializer of the slopes")
STRATA_OPTIONS(PRelu6Options, STRATA_PRELU6_OPTIONS);

class PRelu6 : public Layer {
 public:
  using Options = PRelu6Options;
  STRATA_LAYER_MOVABLE(PRelu6)
  explicit PRelu6(Options options, std::string name = "");
  explicit PRelu6(bool channel_shared = false, Initializer a_init = truncated_normal(0.0, 0.05), std::string name = "");
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

// TensorLayer's fixed-slope activations (tl.act.ramp, leaky_relu6, leaky_twice_relu6) as
// differentiable functions of tensors, for `act` arguments and Lambda layers. The learned-slope
// forms are nn/layers/activation.hpp's layers.
namespace strata::nn {

// x clipped to [v_min, v_max] (tf.clip_by_value); the gradient is 1 inside, 0 outside.
Tensor ramp(const Tensor& x, double v_min = 0, double v_max = 1);
// min(max(x, alpha x), 6): alpha x below 0, x up to 6, then 6. alpha in (0, 1].
Tensor leaky_relu6(const Tensor& x, double alpha = 0.2);
// max(min(x, 6 (1 - alpha_high) + alpha_high x), min(alpha_low x, 0)): alpha_low x below 0, x up
// to 6, then 6 + alpha_high (x - 6). Both slopes in (0, 1].
Tensor leaky_twice_relu6(const Tensor& x, double alpha_low = 0.2, double alpha_high = 0.2);

}  // namespace strata::nn
