// Adam (Kingma & Ba) with optional AMSGrad, and AdamW (Loshchilov & Hutter), whose weight decay
// shrinks the parameter directly instead of being added to the gradient. Exactly the rules of
// torch.optim.Adam / AdamW, bias corrections counted per parameter.
//   optim::Adam adam(params, {.lr = 1e-3, .amsgrad = true});
#pragma once
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;    // decay of the gradient's running mean, in [0, 1)
  double beta2 = 0.999;  // decay of the squared gradient's running mean, in [0, 1)
  double eps = 1e-8;
  double weight_decay = 0;  // Adam: L2 added to the gradient; AdamW: decoupled
  bool amsgrad = false;     // divide by the running maximum of the second moment
};

class Adam : public Optimizer {
 public:
  explicit Adam(std::vector<Tensor> params, AdamOptions options = {});
  const AdamOptions& options() const { return options_; }

 protected:
  Adam(std::vector<Tensor> params, AdamOptions options, std::string name, bool decoupled);
  void update(Tensor& param, const Tensor& grad, ParamState& state) override;
  std::vector<std::string> buffer_names() const override { return {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}; }

 private:
  AdamOptions options_;
  bool decoupled_;  // AdamW
};

// AdamOptions with PyTorch's AdamW default weight decay (0.01); a separate aggregate so that
// designated initialisers work.
struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
};

class AdamW : public Adam {
 public:
  explicit AdamW(std::vector<Tensor> params, AdamWOptions options = {});
};

}  // namespace strata::optim
