// Running normalisation for agents: RunningMeanStd keeps the mean and variance of every feature
// over all batches seen (Chan et al.'s parallel update), to normalise observations; RewardScaler
// divides rewards by the running standard deviation of the discounted return (as SB3's
// VecNormalize and PPO's reference implementation do).
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::rl {

class RunningMeanStd {
 public:
  explicit RunningMeanStd(int64_t size);
  // batch: [B, size] (or [size] for one sample).
  void update(const Tensor& batch);
  // (x - mean) / sqrt(var + epsilon), clipped to [-clip, clip]; x [B, size] or [size].
  Tensor normalize(const Tensor& x, double clip = 10.0, double epsilon = 1e-8) const;
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& var() const { return var_; }  // population variance
  double count() const { return count_; }

 private:
  std::vector<double> mean_, var_;
  double count_ = 0;
};

class RewardScaler {
 public:
  RewardScaler(int64_t copies, double gamma);
  // Scales one step's rewards of N copies, clipped to [-clip, clip] (the first steps' variance is
  // near 0); dones reset the copies' running returns.
  std::vector<float> scale(const std::vector<float>& rewards, const std::vector<uint8_t>& dones, double clip = 10.0,
                           double epsilon = 1e-8);

 private:
  RunningMeanStd stats_{1};
  std::vector<double> returns_;
  double gamma_;
};

}  // namespace strata::rl
