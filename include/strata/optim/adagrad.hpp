// Adagrad (Duchi et al.): divide by the root of the sum of all squared gradients so far, with an
// optional decay of the learning rate per step; exactly torch.optim.Adagrad's rule.
#pragma once
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;  // step t uses lr / (1 + (t - 1) * lr_decay)
  double weight_decay = 0;  // L2 added to the gradient
  double initial_accumulator_value = 0;
  double eps = 1e-10;
};

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  const AdagradOptions& options() const { return options_; }

 protected:
  void update(Tensor& param, const Tensor& grad, ParamState& state) override;
  std::vector<std::string> buffer_names() const override { return {"sum"}; }

 private:
  AdagradOptions options_;
};

}  // namespace strata::optim
