// Adadelta (Zeiler): scale the gradient by the ratio of running RMS of past updates to running
// RMS of gradients, so the step has the parameter's units; exactly torch.optim.Adadelta's rule.
#pragma once
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

struct AdadeltaOptions {
  double lr = 1.0;  // a plain multiplier of the update; Zeiler's method has none
  double rho = 0.9;  // decay of both running means, in [0, 1]
  double eps = 1e-6;
  double weight_decay = 0;  // L2 added to the gradient
};

class Adadelta : public Optimizer {
 public:
  explicit Adadelta(std::vector<Tensor> params, AdadeltaOptions options = {});
  const AdadeltaOptions& options() const { return options_; }

 protected:
  void update(Tensor& param, const Tensor& grad, ParamState& state) override;
  std::vector<std::string> buffer_names() const override { return {"square_avg", "acc_delta"}; }

 private:
  AdadeltaOptions options_;
};

}  // namespace strata::optim
