// DropconnectDense (TensorLayer's): a dense layer whose weights, not activations, are dropped.
// In training each element of W is kept with probability `keep` and scaled by 1 / keep (a fresh
// mask each call); in eval it is a plain Dense. b is never dropped.
#pragma once
#include <memory>

#include "strata/core/factory.hpp"
#include "strata/nn/dense.hpp"

namespace strata::nn {

class DropconnectDense : public Dense {
 public:
  STRATA_LAYER_MOVABLE(DropconnectDense)
  void get_config(nlohmann::json& config) const override;
  // keep in (0, 1]; seed >= 0 gives the layer its own generator (else the default one draws).
  explicit DropconnectDense(int64_t units, double keep = 0.5, Activation act = {}, std::string name = "",
                            int64_t seed = -1, bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.1),
                            Initializer b_init = zeros_init());
 protected:
  Tensor forward(const Tensor& x) override;

 private:
  double keep_;
  int64_t seed_;
  std::unique_ptr<Generator> gen_;
};

}  // namespace strata::nn
