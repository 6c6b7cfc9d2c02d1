// Normalisation layers over channels-last inputs (TensorLayer's BatchNorm, LayerNorm,
// InstanceNorm, GroupNorm). Each has gamma (scale) and beta (shift) over the channels.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// Batch normalisation of x [N, ..., C] over every axis but the channels (the last).
// Weights, in TensorLayer's order: beta, gamma (trainable, [C]), moving_mean, moving_var
// (non-trainable, [C]). Training normalises with the batch statistics and updates the moving
// ones: moving = decay * moving + (1 - decay) * batch, i.e. PyTorch's momentum = 1 - decay,
// with the unbiased batch variance (PyTorch, TensorFlow's fused kernel). Eval uses the moving
// statistics. BatchNorm takes any rank >= 2; BatchNorm1d/2d/3d check theirs.
// The options of BatchNorm and BatchNorm1d/2d/3d (the same keys).
#define STRATA_BATCH_NORM_OPTIONS(X)                                                                         \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch (PyTorch's 1 - momentum)") \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                                            \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                            \
  X(int64_t, num_features, -1, at_least(-1), "channels (the last axis); -1: inferred from the first input")  \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")                            \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma [C]")                           \
  X(Initializer, moving_mean_init, zeros_init(), not_saved(), "initializer of moving_mean [C]")              \
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
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                                \
  X(double, epsilon, 1e-12, at_least(0), "added to the variance")                                              \
  X(int, begin_norm_axis, 1, any(), "the first axis normalised over (negative: from the end)")                 \
  X(int, begin_params_axis, -1, any(), "the first axis of gamma's and beta's shape (negative: from the end)")   \
  X(bool, center, true, any(), "adds beta")                                                                    \
  X(bool, scale, true, any(), "multiplies by gamma")                                                           \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta")                                  \
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
#define STRATA_INSTANCE_NORM_OPTIONS(X)                                                                      \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                              \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                                             \
  X(int64_t, num_features, -1, at_least(-1), "channels (the last axis); -1: inferred from the first input")   \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")                             \
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
#define STRATA_GROUP_NORM_OPTIONS(X)                                                  \
  X(int64_t, groups, 32, at_least(1), "groups the channels are split into")            \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")       \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                      \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")      \
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
