// Adamax: Adam with the infinity norm (a decayed running maximum of |grad|) in place of the
// second moment; exactly torch.optim.Adamax's rule.
#pragma once
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

struct AdamaxOptions {
  double lr = 2e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;  // L2 added to the gradient
};

class Adamax : public Optimizer {
 public:
  explicit Adamax(std::vector<Tensor> params, AdamaxOptions options = {});
  const AdamaxOptions& options() const { return options_; }

 protected:
  void update(Tensor& param, const Tensor& grad, ParamState& state) override;
  std::vector<std::string> buffer_names() const override { return {"exp_avg", "exp_inf"}; }

 private:
  AdamaxOptions options_;
};

}  // namespace strata::optim
