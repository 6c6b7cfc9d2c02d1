// Stochastic gradient descent with optional momentum, dampening, Nesterov momentum and L2 weight
// decay; exactly torch.optim.SGD's rule (the momentum buffer starts as the first gradient).
//   optim::SGD sgd(model.trainable_weights(), {.lr = 0.1, .momentum = 0.9, .nesterov = true});
#pragma once
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;  // needs momentum > 0 and dampening 0
};

class SGD : public Optimizer {
 public:
  explicit SGD(std::vector<Tensor> params, SGDOptions options = {});
  const SGDOptions& options() const { return options_; }

 protected:
  void update(Tensor& param, const Tensor& grad, ParamState& state) override;
  std::vector<std::string> buffer_names() const override { return {"momentum_buffer"}; }

 private:
  SGDOptions options_;
};

}  // namespace strata::optim
