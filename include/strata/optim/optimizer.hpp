// Optimizer: the base of every update rule. It holds the parameters (leaf tensors that require
// grad), a learning rate that schedules may change, and per-parameter state (moments) created
// at a parameter's first update. step() updates in place, without autograd history, every
// parameter whose .grad() is defined; the others are skipped and keep their state.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::optim {

// What an optimizer remembers about one parameter.
struct ParamState {
  int64_t step = 0;                      // updates applied to this parameter (bias corrections)
  std::map<std::string, Tensor> buffers;  // "exp_avg", "momentum_buffer", ... as PyTorch names them
};

class Optimizer {
 public:
  // `name` ("Adam", ...) prefixes error messages. Throws if lr < 0 or a parameter is undefined.
  Optimizer(std::vector<Tensor> params, double lr, std::string name);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  void step();
  void zero_grad();  // drops every parameter's gradient (undefined, not zero-filled)

  double learning_rate() const { return lr_; }
  void set_learning_rate(double lr);
  const std::vector<Tensor>& params() const { return params_; }
  const std::string& name() const { return name_; }
  // The state of params()[i]; empty (step 0, no buffers) until its first update.
  const ParamState& state(size_t i) const { return states_.at(i); }

  // Everything step() remembers, as named tensors for a checkpoint (io::to_safetensors, the
  // hub): "lr" (f64 scalar), "params" (i64 scalar, the parameter count), and per parameter i
  // that has been updated "<i>.step" (i64 scalar) and "<i>.<buffer>" (shaped like it).
  // Hyper-parameters (betas, momentum, ...) are not state: make the optimizer with the same ones.
  io::NamedTensors named_state() const;
  // Replaces the state with `state` (from named_state() of an optimizer of the same kind over
  // parameters of the same shapes), so that training continues bit for bit. Checks everything
  // before changing anything, and throws strata::Error naming the entry that does not fit
  // (parameter count, an unknown or misshapen buffer, a buffer this optimizer does not use).
  void load_state(const io::NamedTensors& state);

 protected:
  // Applies one update to `param` given its gradient; state.step is already incremented.
  virtual void update(Tensor& param, const Tensor& grad, ParamState& state) = 0;

  // The buffer names update() may create, for load_state's check ({"exp_avg", "exp_avg_sq"}).
  virtual std::vector<std::string> buffer_names() const = 0;
  // The buffer `key` of `state`, created filled with `init` and shaped like `like` if missing.
  static Tensor& buffer(ParamState& state, const std::string& key, const Tensor& like, double init = 0);
  // grad + weight_decay * param (L2 regularisation folded into the gradient).
  static Tensor l2_grad(const Tensor& grad, const Tensor& param, double weight_decay);
  // Throws "<name>: <what> must be in [low, high), got <value>" (closed when high_closed).
  void check_range(const char* what, double value, double low, double high, bool high_closed = false) const;

 private:
  std::vector<Tensor> params_;
  std::vector<ParamState> states_;
  double lr_;
  std::string name_;
};

}  // namespace strata::optim
