// RMSprop (Hinton): divide the gradient by a running root mean square, optionally centred (by
// the running mean's square) and with momentum; exactly torch.optim.RMSprop's rule.
#pragma once
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;  // decay of the running mean square, in [0, 1]
  double eps = 1e-8;
  double weight_decay = 0;  // L2 added to the gradient
  double momentum = 0;
  bool centered = false;
};

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  const RMSpropOptions& options() const { return options_; }

 protected:
  void update(Tensor& param, const Tensor& grad, ParamState& state) override;
  std::vector<std::string> buffer_names() const override { return {"square_avg", "grad_avg", "momentum_buffer"}; }

 private:
  RMSpropOptions options_;
};

}  // namespace strata::optim
