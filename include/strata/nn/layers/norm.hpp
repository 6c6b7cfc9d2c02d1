// Normalisation layers: batch, layer, instance, group, local response and switchable normalisation,
// and the weight re-parametrisations (spectral and weight normalisation).
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <memory>
#include <string>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/options.hpp"

// Normalisation layers over channels-last inputs (TensorLayer's BatchNorm, LayerNorm,
// InstanceNorm, GroupNorm). Each has gamma (scale) and beta (shift) over the channels.
namespace strata::nn {

// Batch normalisation of x [N, ..., C] over every axis but the channels (the last).
// Weights, in TensorLayer's order: beta, gamma (trainable, [C]), moving_mean, moving_var
// (non-trainable, [C]). Training normalises with the batch statistics and updates the moving
// ones: moving = decay * moving + (1 - decay) * batch, i.e. PyTorch's momentum = 1 - decay,
// with the unbiased batch variance (PyTorch, TensorFlow's fused kernel). Eval uses the moving
// statistics. BatchNorm takes any rank >= 2; BatchNorm1d/2d/3d check theirs.
// The options of BatchNorm and BatchNorm1d/2d/3d (the same keys).
#define STRATA_BATCH_NORM_OPTIONS(X)                                                                             \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch (PyTorch's 1 - momentum)") \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                                                 \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                                 \
  X(int64_t, num_features, -1, at_least(-1), "channels (the last axis); -1: inferred from the first input")      \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")                                \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma [C]")                               \
  X(Initializer, moving_mean_init, zeros_init(), not_saved(), "initializer of moving_mean [C]")                  \
  X(Initializer, moving_var_init, ones_init(), not_saved(), "initializer of moving_var [C]")
STRATA_OPTIONS(BatchNormOptions, STRATA_BATCH_NORM_OPTIONS);

class BatchNorm : public Layer {
 public:
  using Options = BatchNormOptions;
  STRATA_LAYER_MOVABLE(BatchNorm)
  explicit BatchNorm(Options options, std::string name = "");
  explicit BatchNorm(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                     int64_t num_features = -1, Initializer beta_init = zeros_init(),
                     Initializer gamma_init = ones_init(), Initializer moving_mean_init = zeros_init(),
                     Initializer moving_var_init = ones_init());
  // num_features is filled in at the first call.
  const Options& options() const { return options_; }
  Tensor beta, gamma, moving_mean, moving_var;

 protected:
  // ranks: the input ranks allowed (empty: any rank >= 2).
  BatchNorm(std::string kind, std::vector<int> ranks, Options options, std::string name);
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  void check(const Shape& s) const;
  std::vector<int> ranks_;
  Options options_;
};

// The same with the input's rank checked: [N, C] or [N, W, C]; [N, H, W, C]; [N, D, H, W, C].
class BatchNorm1d : public BatchNorm {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm1d)
  explicit BatchNorm1d(Options options, std::string name = "");
  explicit BatchNorm1d(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                       int64_t num_features = -1);
};
class BatchNorm2d : public BatchNorm {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm2d)
  explicit BatchNorm2d(Options options, std::string name = "");
  explicit BatchNorm2d(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                       int64_t num_features = -1);
};
class BatchNorm3d : public BatchNorm {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm3d)
  explicit BatchNorm3d(Options options, std::string name = "");
  explicit BatchNorm3d(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                       int64_t num_features = -1);
};

// Layer normalisation over the axes from begin_norm_axis on, with gamma and beta of the shape
// of the axes from begin_params_axis on — TensorLayer's (tf.contrib) defaults: normalise over
// every axis but the batch, scale and shift per channel. begin_norm_axis = -1 gives Keras's
// and PyTorch's usual per-position normalisation. Biased variance.
#define STRATA_LAYER_NORM_OPTIONS(X)                                                                          \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                              \
  X(double, epsilon, 1e-12, at_least(0), "added to the variance")                                             \
  X(int, begin_norm_axis, 1, any(), "the first axis normalised over (negative: from the end)")                \
  X(int, begin_params_axis, -1, any(), "the first axis of gamma's and beta's shape (negative: from the end)") \
  X(bool, center, true, any(), "adds beta")                                                                   \
  X(bool, scale, true, any(), "multiplies by gamma")                                                          \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta")                                 \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma")
STRATA_OPTIONS(LayerNormOptions, STRATA_LAYER_NORM_OPTIONS);

class LayerNorm : public Layer {
 public:
  using Options = LayerNormOptions;
  STRATA_LAYER_MOVABLE(LayerNorm)
  explicit LayerNorm(Options options, std::string name = "");
  explicit LayerNorm(Activation act = {}, double epsilon = 1e-12, int begin_norm_axis = 1, int begin_params_axis = -1,
                     bool center = true, bool scale = true, std::string name = "", Initializer beta_init = zeros_init(),
                     Initializer gamma_init = ones_init());
  // The axes are made non-negative at the first call.
  const Options& options() const { return options_; }
  Tensor beta, gamma;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int rank_ = 0;
  Shape params_shape_;
};

// Instance normalisation: each sample's channels normalised over the spatial axes
// (x [N, spatial..., C]); gamma and beta [C]. Biased variance.
#define STRATA_INSTANCE_NORM_OPTIONS(X)                                                                     \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                            \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                                            \
  X(int64_t, num_features, -1, at_least(-1), "channels (the last axis); -1: inferred from the first input") \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")                           \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma [C]")
STRATA_OPTIONS(InstanceNormOptions, STRATA_INSTANCE_NORM_OPTIONS);

class InstanceNorm : public Layer {
 public:
  using Options = InstanceNormOptions;
  STRATA_LAYER_MOVABLE(InstanceNorm)
  explicit InstanceNorm(Options options, std::string name = "");
  explicit InstanceNorm(Activation act = {}, double epsilon = 1e-5, std::string name = "", int64_t num_features = -1,
                        Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  // num_features is filled in at the first call.
  const Options& options() const { return options_; }
  Tensor beta, gamma;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int rank_ = 0;
};

// Group normalisation (Wu & He): the channels split into `groups` groups, each sample's group
// normalised over the spatial axes and its channels; gamma and beta [C]. Biased variance.
#define STRATA_GROUP_NORM_OPTIONS(X)                                              \
  X(int64_t, groups, 32, at_least(1), "groups the channels are split into")       \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")  \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                  \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]") \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma [C]")
STRATA_OPTIONS(GroupNormOptions, STRATA_GROUP_NORM_OPTIONS);

class GroupNorm : public Layer {
 public:
  using Options = GroupNormOptions;
  STRATA_LAYER_MOVABLE(GroupNorm)
  explicit GroupNorm(Options options, std::string name = "");
  explicit GroupNorm(int64_t groups = 32, Activation act = {}, double epsilon = 1e-5, std::string name = "",
                     Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  const Options& options() const { return options_; }
  Tensor beta, gamma;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int rank_ = 0;
  int64_t channels_ = 0;
};

// The functional forms (any floating dtype; gamma / beta [C] may be undefined).
Tensor instance_norm(const Tensor& x, const Tensor& gamma = Tensor(), const Tensor& beta = Tensor(), double eps = 1e-5);
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& gamma = Tensor(), const Tensor& beta = Tensor(),
                  double eps = 1e-5);

}  // namespace strata::nn

// More normalisation layers on channels-last inputs: TensorLayer's LocalResponseNorm (AlexNet's,
// tf.nn.local_response_normalization) and SwitchNorm (Luo et al. 2018).
namespace strata::nn {

// tf.nn.local_response_normalization over the last axis:
// y = x / (bias + alpha * sum of x² over channels [c - depth_radius, c + depth_radius]) ^ beta.
Tensor local_response_norm(const Tensor& x, int64_t depth_radius = 5, double bias = 1.0, double alpha = 1.0,
                           double beta = 0.5);

#define STRATA_LOCAL_RESPONSE_NORM_OPTIONS(X)                                           \
  X(int64_t, depth_radius, 5, at_least(0), "channels summed on each side of a channel") \
  X(double, bias, 1.0, any(), "added to the weighted sum")                              \
  X(double, alpha, 1.0, any(), "the sum's weight")                                      \
  X(double, beta, 0.5, any(), "the exponent")
STRATA_OPTIONS(LocalResponseNormOptions, STRATA_LOCAL_RESPONSE_NORM_OPTIONS);

// No weights. Defaults are TensorFlow's (TensorLayer passes None for them).
class LocalResponseNorm : public Layer {
 public:
  using Options = LocalResponseNormOptions;
  STRATA_LAYER_MOVABLE(LocalResponseNorm)
  explicit LocalResponseNorm(Options options, std::string name = "");
  explicit LocalResponseNorm(int64_t depth_radius = 5, double bias = 1.0, double alpha = 1.0, double beta = 0.5,
                             std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// Switchable normalisation of x [N, spatial..., C]: the mean and the variance are softmax-
// weighted mixes of the batch, instance and layer statistics (biased variances), then gamma
// and beta per channel. Weights, TensorLayer's first: beta, gamma [C], mean_weight,
// var_weight [3] (batch, instance, layer; starting at ones), then the non-trainable
// moving_mean, moving_var [C] of the batch statistics. Training uses the batch's statistics
// and updates the moving ones (moving = decay * moving + (1 - decay) * batch); eval uses the
// moving ones for the batch part, as the paper's code does (TensorLayer uses the batch's in
// eval too, which makes a prediction depend on the rest of its batch).
#define STRATA_SWITCH_NORM_OPTIONS(X)                                                   \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")        \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                        \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch") \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")       \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma [C]")
STRATA_OPTIONS(SwitchNormOptions, STRATA_SWITCH_NORM_OPTIONS);

class SwitchNorm : public Layer {
 public:
  using Options = SwitchNormOptions;
  STRATA_LAYER_MOVABLE(SwitchNorm)
  explicit SwitchNorm(Options options, std::string name = "");
  explicit SwitchNorm(Activation act = {}, double epsilon = 1e-5, double decay = 0.9, std::string name = "",
                      Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  const Options& options() const { return options_; }
  Tensor beta, gamma, mean_weight, var_weight, moving_mean, moving_var;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int rank_ = 0;
  int64_t channels_ = 0;
};

}  // namespace strata::nn

// Wrappers that reparametrise one weight of another layer for each call: spectral
// normalisation (Miyato et al. 2018; PyTorch's spectral_norm) and weight normalisation
// (Salimans & Kingma 2016; PyTorch's weight_norm). The wrapped layer keeps its weight, which
// trains; during the wrapper's call the layer computes with the reparametrised one.
//
//   nn::Dense dense(64);
//   nn::SpectralNorm sn(dense, dense.W);   // sn(x) is dense(x) with W / sigma_max(W)
//
// A wrapper saves the wrapped layer's config inside its own and the weight by name, so a
// model holding one saves whole when the weight is the "W" of a Dense (or a subclass), Conv2d,
// ConvLayer (Conv1d/3d, DeConv*, GroupConv2d, ...), DepthwiseConv2d or QuantizedConv2d: C++
// cannot find a member by name, so these are the members loading knows.
namespace strata::nn {

// The options the wrappers share: the layer (owned, or held without ownership when given as a
// Layer&) and its weight's name, "W", or "" for a member a saved model cannot name.
#define STRATA_SPECTRAL_NORM_OPTIONS(X)                                                               \
  X(std::shared_ptr<Layer>, layer, nullptr, any(), "the wrapped layer (saved as its config)")         \
  X(std::string, weight, "W", any(), "its weight wrapped: \"W\", the one member a saved model names") \
  X(int, n_power_iterations, 1, between(0, 10000), "power-iteration steps per training call")         \
  X(double, eps, 1e-12, any(), "added to the norms it divides by")
STRATA_OPTIONS(SpectralNormOptions, STRATA_SPECTRAL_NORM_OPTIONS);

#define STRATA_WEIGHT_NORM_OPTIONS(X)                                                         \
  X(std::shared_ptr<Layer>, layer, nullptr, any(), "the wrapped layer (saved as its config)") \
  X(std::string, weight, "W", any(), "its weight wrapped: \"W\", the one member a saved model names")
STRATA_OPTIONS(WeightNormOptions, STRATA_WEIGHT_NORM_OPTIONS);

// The shared part: `layer` (which must outlive the wrapper) and its weight member `weight`
// (e.g. dense.W, conv.W). The layer is built at the wrapper's first call; the weight's last
// axis is its output axis (TensorLayer's layouts), the others its input.
class WeightWrapper : public Layer {
 protected:
  WeightWrapper(std::string kind, Layer& layer, Tensor& weight, std::string name);
  // Owns `layer` and wraps its weight member named `weight` (one of those listed above).
  WeightWrapper(std::string kind, std::shared_ptr<Layer> layer, const std::string& weight, std::string name);
  Tensor forward(const Tensor& x) override;
  // Called once, after the layer is built (weight() defined): create the wrapper's weights.
  virtual void prepare() = 0;
  // The weight the layer computes with in this call.
  virtual Tensor reparametrise(const Tensor& w) = 0;
  const Tensor& weight() const { return *weight_; }
  // The wrapped layer as the options hold it (owning nothing when given as a Layer&).
  const std::shared_ptr<Layer>& wrapped_layer() const { return layer_; }
  // "W" when the wrapped weight is a member a saved model can name, else "".
  std::string weight_name() const;
  // Throws naming both layers when the weight is one a saved model cannot name.
  void expect_nameable() const;

 private:
  std::shared_ptr<Layer> layer_;
  Tensor* weight_;
  bool prepared_ = false;
};

// W / sigma, sigma W's largest singular value (of W as a [inputs, outputs] matrix) estimated by
// power iteration: each training call runs n_power_iterations steps on the stored vector
// "u" [outputs] (non-trainable), eval reuses it. The gradient treats u as a constant, as
// PyTorch's does.
class SpectralNorm : public WeightWrapper {
 public:
  using Options = SpectralNormOptions;
  STRATA_LAYER_MOVABLE(SpectralNorm)
  // Owning options.layer, its weight named (as Model::load builds it).
  explicit SpectralNorm(Options options, std::string name = "");
  SpectralNorm(Layer& layer, Tensor& weight, int n_power_iterations = 1, double eps = 1e-12, std::string name = "");
  SpectralNorm(std::shared_ptr<Layer> layer, const std::string& weight, int n_power_iterations = 1, double eps = 1e-12,
               std::string name = "");
  // The options as saved; throws when the wrapped weight is one a saved model cannot name.
  const Options& options() const;
  Tensor u;
  // sigma of the weight with the current u (no iteration).
  Tensor sigma() const;

 protected:
  void prepare() override;
  Tensor reparametrise(const Tensor& w) override;

 private:
  Options options_;
};

// W = g * v / ||v||, the norm per output (over every axis but the last); v is the layer's
// weight and "g" [outputs] starts at ||v||, so the first call computes what the layer did.
class WeightNorm : public WeightWrapper {
 public:
  using Options = WeightNormOptions;
  STRATA_LAYER_MOVABLE(WeightNorm)
  explicit WeightNorm(Options options, std::string name = "");
  WeightNorm(Layer& layer, Tensor& weight, std::string name = "");
  WeightNorm(std::shared_ptr<Layer> layer, const std::string& weight, std::string name = "");
  // As SpectralNorm's.
  const Options& options() const;
  Tensor g;

 protected:
  void prepare() override;
  Tensor reparametrise(const Tensor& w) override;

 private:
  Options options_;
};

}  // namespace strata::nn
