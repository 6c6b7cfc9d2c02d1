// int8 inference (docs/quantization.md): Int8Dense and Int8Conv2d compute with u8 activations and
// s8 per-output-channel weights as ops' prepared int8 ops (strata/ops/prepared.hpp; on the CPU
// oneDNN's int8 primitives, VNNI where the CPU has it), and quantize_int8 turns a trained static
// model into one made of them, calibrated on data.
//
// An int8 layer takes float32 input x, quantises it with its calibrated per-tensor step and zero
// point, q = clamp(round(x / input_scale) + input_zero_point, 0, 255), and returns float32:
//   y[o] = act(input_scale * w_scale[o] * sum_i (q[i] - input_zero_point) * W[i, o] + b[o])
// so pools, flatten and softmax between int8 layers run in float. A "relu" act runs inside the
// int8 product (a oneDNN post-op); any other act is applied to the float output.
// Weights: W holds the s8 values as float32 (TensorLayer's shapes: [in, out], [kh, kw, in, out]),
// w_scale [out] the per-channel steps (finite, > 0), b [out] the float bias. They are packed for
// oneDNN at the first call of each input shape; change them afterwards and call repack().
// Inference only: no gradients flow through these layers.
//
// Not in the umbrella header: include "strata/nn/int8.hpp".
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/model.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

namespace detail {
class Int8Plans;  // the prepared int8 ops, one per input shape (src/nn/int8_plans.hpp)
}  // namespace detail

// The input quantisation every int8 layer declares (after its float twin's fields).
#define STRATA_INT8_INPUT_FIELDS(X)                                                                        \
  X(double, input_scale, 1.0, between(1e-30, 1e6), "input step: x = input_scale * (q - input_zero_point)") \
  X(int64_t, input_zero_point, 0, between(0, 255), "the u8 input value that stands for 0.0")

// Dense's saved fields, then the input quantisation.
#define STRATA_INT8_DENSE_OPTIONS(X)                                                            \
  X(int64_t, units, 0, at_least(1), "output features")                                          \
  X(Activation, act, {}, any(), "applied to the output; \"relu\" runs inside the int8 product") \
  X(int64_t, in_units, -1, at_least(-1), "input features; -1: inferred from the first input")   \
  X(bool, use_bias, true, any(), "adds the float bias b [units]")                               \
  STRATA_INT8_INPUT_FIELDS(X)
STRATA_OPTIONS(Int8DenseOptions, STRATA_INT8_DENSE_OPTIONS);

// Conv2d's saved fields (NHWC, groups 1), then the input quantisation.
#define STRATA_INT8_CONV2D_OPTIONS(X)                                                                  \
  X(int64_t, n_filter, 0, at_least(1), "output channels")                                              \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel size; one value: both axes") \
  X(Activation, act, {}, any(), "applied to the output; \"relu\" runs inside the int8 convolution")    \
  X(ConvOptions, options, (ConvOptions{.padding = Padding::same()}), any(),                            \
    "stride, padding and dilation (groups must be 1)")                                                 \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")       \
  X(bool, use_bias, true, any(), "adds the float bias b [n_filter]")                                   \
  STRATA_INT8_INPUT_FIELDS(X)
STRATA_OPTIONS(Int8Conv2dOptions, STRATA_INT8_CONV2D_OPTIONS);

// What both int8 layers are made of: the weights, their packed form and the quantised call.
class Int8Layer : public Layer {
 public:
  ~Int8Layer() override;
  // Drops the packed weights and primitives: the next call packs W, w_scale and b again.
  void repack();
  Tensor W, w_scale, b;

 protected:
  Int8Layer(std::string kind, std::string name);
  Int8Layer(Int8Layer&&) noexcept;
  // W [w_shape] (its last axis the output channels), w_scale [out] and, with use_bias, b [out].
  void add_int8_weights(const Shape& w_shape, bool use_bias);
  // act(the int8 product of x quantised by (scale, zero_point)), of out_shape: a matmul over x's
  // last axis when conv is null, else a convolution of x [n, h, w, in] with conv's options.
  Tensor run_int8(const Tensor& x, const Shape& out_shape, double scale, int64_t zero_point, const Activation& act,
                  const ConvOptions* conv = nullptr);

 private:
  std::unique_ptr<detail::Int8Plans> plans_;
};

class Int8Dense : public Int8Layer {
 public:
  using Options = Int8DenseOptions;
  STRATA_LAYER_MOVABLE(Int8Dense)
  explicit Int8Dense(Options options, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

class Int8Conv2d : public Int8Layer {
 public:
  using Options = Int8Conv2dOptions;
  STRATA_LAYER_MOVABLE(Int8Conv2d)
  explicit Int8Conv2d(Options options, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// ---- post-training quantisation

enum class Calibration { min_max, percentile };

struct QuantizeOptions {
  Calibration method = Calibration::min_max;
  // percentile: each input's range is [the (100 - p)-th, the p-th] percentile of its values.
  double percentile = 99.99;
  int64_t num_batches = 0;  // calibration batches used; 0: all given
  // percentile keeps at most this many values per layer input (an even stride over the rest).
  int64_t max_values_per_layer = int64_t{1} << 22;
};

// What happened to one Dense or Conv2d of the float model.
struct LayerQuantization {
  std::string name, kind;  // the float layer's name and kind
  bool quantized = false;
  std::string reason;                   // why it stayed float (empty when quantized)
  double input_min = 0, input_max = 0;  // the calibrated range (quantized layers)
  double input_scale = 0;
  int64_t input_zero_point = 0;
};

struct QuantizedModel {
  std::shared_ptr<Model> model;  // the int8 model: same graph, inputs, outputs and layer names
  std::vector<LayerQuantization> layers;
  std::string report() const;  // one line per layer
};

// Runs `float_model` (single input, eval mode, no gradients) on the calibration batches, records
// each top-level Dense and Conv2d input's range, and builds the int8 model: each such layer
// becomes Int8Dense / Int8Conv2d with per-output-channel weights (w_scale = max|W[:, o]| / 127)
// and its input's step and zero point; the other layers keep their float weights. A Dense or
// Conv2d that cannot be quantised (grouped convolution, a layer called on several inputs, an input
// that is not float32) stays float and the report says why. Throws strata::Error for no batches,
// bad options, or a model whose layers' classes cannot be saved (its graph is rebuilt from JSON).
QuantizedModel quantize_int8(Model& float_model, const std::vector<Tensor>& calibration_batches,
                             const QuantizeOptions& options = {});

}  // namespace strata::nn
