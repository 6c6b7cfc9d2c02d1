// Normalisation layers over channels-last inputs (TensorLayer's BatchNorm, LayerNorm,
// InstanceNorm, GroupNorm). Each has gamma (scale) and beta (shift) over the channels.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"

namespace strata::nn {

// Batch normalisation of x [N, ..., C] over every axis but the channels (the last).
// Weights, in TensorLayer's order: beta, gamma (trainable, [C]), moving_mean, moving_var
// (non-trainable, [C]). Training normalises with the batch statistics and updates the moving
// ones: moving = decay * moving + (1 - decay) * batch, i.e. PyTorch's momentum = 1 - decay,
// with the unbiased batch variance (PyTorch, TensorFlow's fused kernel). Eval uses the moving
// statistics. BatchNorm takes any rank >= 2; BatchNorm1d/2d/3d check theirs.
class BatchNorm : public Layer {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm)
  void get_config(nlohmann::json& config) const override;
  explicit BatchNorm(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                     int64_t num_features = -1, Initializer beta_init = zeros_init(),
                     Initializer gamma_init = ones_init(), Initializer moving_mean_init = zeros_init(),
                     Initializer moving_var_init = ones_init());
  Tensor beta, gamma, moving_mean, moving_var;

 protected:
  // ranks: the input ranks allowed (empty: any rank >= 2).
  BatchNorm(std::string kind, std::vector<int> ranks, double decay, double epsilon, Activation act, std::string name,
            int64_t num_features, Initializer beta_init, Initializer gamma_init, Initializer moving_mean_init,
            Initializer moving_var_init);
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  void check(const Shape& s) const;
  std::vector<int> ranks_;
  double decay_, epsilon_;
  Activation act_;
  int64_t num_features_;
  Initializer beta_init_, gamma_init_, mean_init_, var_init_;
};

// The same with the input's rank checked: [N, C] or [N, W, C]; [N, H, W, C]; [N, D, H, W, C].
class BatchNorm1d : public BatchNorm {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm1d)
  explicit BatchNorm1d(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                       int64_t num_features = -1);
};
class BatchNorm2d : public BatchNorm {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm2d)
  explicit BatchNorm2d(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                       int64_t num_features = -1);
};
class BatchNorm3d : public BatchNorm {
 public:
  STRATA_LAYER_MOVABLE(BatchNorm3d)
  explicit BatchNorm3d(double decay = 0.9, double epsilon = 1e-5, Activation act = {}, std::string name = "",
                       int64_t num_features = -1);
};

// Layer normalisation over the axes from begin_norm_axis on, with gamma and beta of the shape
// of the axes from begin_params_axis on — TensorLayer's (tf.contrib) defaults: normalise over
// every axis but the batch, scale and shift per channel. begin_norm_axis = -1 gives Keras's
// and PyTorch's usual per-position normalisation. Biased variance.
class LayerNorm : public Layer {
 public:
  STRATA_LAYER_MOVABLE(LayerNorm)
  void get_config(nlohmann::json& config) const override;
  explicit LayerNorm(Activation act = {}, double epsilon = 1e-12, int begin_norm_axis = 1, int begin_params_axis = -1,
                     bool center = true, bool scale = true, std::string name = "", Initializer beta_init = zeros_init(),
                     Initializer gamma_init = ones_init());
  Tensor beta, gamma;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Activation act_;
  double epsilon_;
  int begin_norm_axis_, begin_params_axis_, rank_ = 0;
  bool center_, scale_;
  Initializer beta_init_, gamma_init_;
  Shape params_shape_;
};

// Instance normalisation: each sample's channels normalised over the spatial axes
// (x [N, spatial..., C]); gamma and beta [C]. Biased variance.
class InstanceNorm : public Layer {
 public:
  STRATA_LAYER_MOVABLE(InstanceNorm)
  void get_config(nlohmann::json& config) const override;
  explicit InstanceNorm(Activation act = {}, double epsilon = 1e-5, std::string name = "", int64_t num_features = -1,
                        Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  Tensor beta, gamma;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Activation act_;
  double epsilon_;
  int64_t num_features_;
  int rank_ = 0;
  Initializer beta_init_, gamma_init_;
};

// Group normalisation (Wu & He): the channels split into `groups` groups, each sample's group
// normalised over the spatial axes and its channels; gamma and beta [C]. Biased variance.
class GroupNorm : public Layer {
 public:
  STRATA_LAYER_MOVABLE(GroupNorm)
  void get_config(nlohmann::json& config) const override;
  explicit GroupNorm(int64_t groups = 32, Activation act = {}, double epsilon = 1e-5, std::string name = "",
                     Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  Tensor beta, gamma;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int64_t groups_;
  Activation act_;
  double epsilon_;
  int rank_ = 0;
  int64_t channels_ = 0;
  Initializer beta_init_, gamma_init_;
};

// The functional forms (any floating dtype; gamma / beta [C] may be undefined).
Tensor instance_norm(const Tensor& x, const Tensor& gamma = Tensor(), const Tensor& beta = Tensor(), double eps = 1e-5);
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& gamma = Tensor(), const Tensor& beta = Tensor(),
                  double eps = 1e-5);

}  // namespace strata::nn
