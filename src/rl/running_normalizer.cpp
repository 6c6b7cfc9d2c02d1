#include "strata/rl/running_normalizer.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::rl {

RunningMeanStd::RunningMeanStd(int64_t size) {
  STRATA_CHECK(size > 0, "RunningMeanStd: size must be positive, got ", size);
  mean_.assign(size, 0.0);
  var_.assign(size, 1.0);
}

void RunningMeanStd::update(const Tensor& batch) {
  const int64_t d = static_cast<int64_t>(mean_.size());
  STRATA_CHECK(batch.numel() > 0 && batch.numel() % d == 0 && batch.size(-1) == d, "RunningMeanStd::update: expected [B, ",
               d, "] or [", d, "], got ", batch.shape().str());
  const auto x = batch.contiguous().to(kFloat32).to_vector<float>();
  const int64_t B = batch.numel() / d;
  for (int64_t j = 0; j < d; ++j) {
    double m = 0, v = 0;
    for (int64_t b = 0; b < B; ++b) m += x[b * d + j];
    m /= B;
    for (int64_t b = 0; b < B; ++b) v += (x[b * d + j] - m) * (x[b * d + j] - m);
    v /= B;
    // Chan et al.: combine (count_, mean_, var_) with the batch's (B, m, v).
    const double total = count_ + B, delta = m - mean_[j];
    const double m2 = var_[j] * count_ + v * B + delta * delta * count_ * B / total;
    mean_[j] += delta * B / total;
    var_[j] = m2 / total;
  }
  count_ += B;
}

Tensor RunningMeanStd::normalize(const Tensor& x, double clip, double epsilon) const {
  const int64_t d = static_cast<int64_t>(mean_.size());
  STRATA_CHECK(x.numel() % d == 0 && x.size(-1) == d, "RunningMeanStd::normalize: expected [B, ", d, "] or [", d,
               "], got ", x.shape().str());
  auto v = x.contiguous().to(kFloat32).to_vector<float>();
  for (size_t k = 0; k < v.size(); ++k) {
    const size_t j = k % d;
    v[k] = static_cast<float>(std::clamp((v[k] - mean_[j]) / std::sqrt(var_[j] + epsilon), -clip, clip));
  }
  return from_vector(v, x.shape());
}

RewardScaler::RewardScaler(int64_t copies, double gamma) : returns_(copies, 0.0), gamma_(gamma) {}

std::vector<float> RewardScaler::scale(const std::vector<float>& rewards, const std::vector<uint8_t>& dones,
                                       double clip, double epsilon) {
  STRATA_CHECK(rewards.size() == returns_.size() && dones.size() == returns_.size(), "RewardScaler::scale: expected ",
               returns_.size(), " rewards and dones, got ", rewards.size(), " and ", dones.size());
  std::vector<float> g(rewards.size());
  for (size_t i = 0; i < rewards.size(); ++i) g[i] = static_cast<float>(returns_[i] = returns_[i] * gamma_ + rewards[i]);
  stats_.update(from_vector(g, {static_cast<int64_t>(g.size()), 1}));
  std::vector<float> out(rewards.size());
  const double scale = std::sqrt(stats_.var()[0] + epsilon);
  for (size_t i = 0; i < rewards.size(); ++i) {
    out[i] = static_cast<float>(std::clamp(rewards[i] / scale, -clip, clip));
    if (dones[i]) returns_[i] = 0;
  }
  return out;
}

}  // namespace strata::rl
