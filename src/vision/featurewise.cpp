// Featurewise normalisation and ZCA whitening: statistics fitted once, applied to later data.
#include "strata/vision/featurewise.hpp"

#include <cmath>

#include "image_common.hpp"
#include "strata/core/factory.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "data/symmetric_eigen.hpp"

namespace strata::vision {

namespace {

DType float_result(DType t) { return t == kFloat64 ? kFloat64 : kFloat32; }

}  // namespace

FeaturewiseNormalization FeaturewiseNormalization::fit(const Tensor& data, double epsilon) {
  STRATA_CHECK(data.defined() && data.dim() >= 1 && data.numel() > 0,
               "FeaturewiseNormalization::fit: expected a non-empty tensor with channels last, got ",
               data.defined() ? data.shape().str() : std::string("an undefined tensor"));
  detail::check_image_dtype(data, "FeaturewiseNormalization::fit");
  const Tensor in = contiguous(data);
  const int64_t channels = in.size(-1), n = in.numel(), per_channel = n / channels;
  std::vector<double> mean(channels, 0.0), var(channels, 0.0);
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    // Two passes (mean, then squared distances): no cancellation on data far from zero.
    for (int64_t i = 0; i < n; ++i) mean[i % channels] += static_cast<double>(src[i]);
    for (double& m : mean) m /= static_cast<double>(per_channel);
    for (int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(src[i]) - mean[i % channels];
      var[i % channels] += d * d;
    }
  });
  for (double& v : var) v = std::sqrt(v / static_cast<double>(per_channel));
  return FeaturewiseNormalization(std::move(mean), std::move(var), epsilon);
}

FeaturewiseNormalization::FeaturewiseNormalization(std::vector<double> mean, std::vector<double> std, double epsilon)
    : mean_(std::move(mean)), std_(std::move(std)), epsilon_(epsilon) {
  STRATA_CHECK(!mean_.empty() && mean_.size() == std_.size(), "FeaturewiseNormalization: expected as many means as ",
               "stds (one per channel, at least one), got ", mean_.size(), " and ", std_.size());
}

Tensor FeaturewiseNormalization::operator()(const Tensor& x) const {
  STRATA_CHECK(x.defined() && x.dim() >= 1 && x.size(-1) == static_cast<int64_t>(mean_.size()),
               "FeaturewiseNormalization: expected a tensor whose last axis has the ", mean_.size(),
               " fitted channels, got ", x.defined() ? x.shape().str() : std::string("an undefined tensor"));
  detail::check_image_dtype(x, "FeaturewiseNormalization");
  const Tensor in = contiguous(x);
  Tensor out = Tensor::empty(in.shape(), float_result(in.dtype()));
  const int64_t channels = in.size(-1);
  detail::dispatch_image_pair(in, out, [&](const auto* src, auto* dst) {
    using U = std::remove_pointer_t<decltype(dst)>;
    for (int64_t i = 0; i < in.numel(); ++i) {
      const int64_t c = i % channels;
      dst[i] = static_cast<U>((static_cast<double>(src[i]) - mean_[c]) / (std_[c] + epsilon_));
    }
  });
  return out;
}

ZcaWhitening ZcaWhitening::fit(const Tensor& data, double epsilon) {
  STRATA_CHECK(data.defined() && data.dim() >= 2 && data.size(0) >= 2 && data.numel() > 0,
               "ZcaWhitening::fit: expected [N, ...] samples with N >= 2, got ",
               data.defined() ? data.shape().str() : std::string("an undefined tensor"));
  detail::check_image_dtype(data, "ZcaWhitening::fit");
  NoGradGuard no_grad;
  ZcaWhitening z;
  z.sample_shape_ = Shape(data.shape().begin() + 1, data.shape().end());
  const int64_t n = data.size(0), d = z.sample_shape_.numel();
  const Tensor flat = reshape(contiguous(data.to(kFloat64)), {n, d});
  z.mean_ = contiguous(strata::mean(flat, {0}));
  const Tensor centred = flat - z.mean_;
  const Tensor covariance = contiguous(matmul(mT(centred), centred) / static_cast<double>(n));
  const data::detail::SymmetricEigen eig = data::detail::symmetric_eigen(covariance.to_vector<double>(), d);
  // W = U diag(1 / sqrt(lambda + eps)) U^T; tiny negative eigenvalues from rounding count as 0.
  std::vector<double> w(d * d, 0.0), scale(d);
  for (int64_t k = 0; k < d; ++k) scale[k] = 1 / std::sqrt(std::max(eig.values[k], 0.0) + epsilon);
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = 0; j < d; ++j) {
      double s = 0;
      for (int64_t k = 0; k < d; ++k) s += eig.vectors[i * d + k] * scale[k] * eig.vectors[j * d + k];
      w[i * d + j] = s;
    }
  z.matrix_ = from_vector(w, {d, d});
  return z;
}

Tensor ZcaWhitening::operator()(const Tensor& x) const {
  STRATA_CHECK(matrix_.defined(), "ZcaWhitening: not fitted (use ZcaWhitening::fit)");
  STRATA_CHECK(x.defined(), "ZcaWhitening: expected samples of shape ", sample_shape_.str(), ", got an undefined tensor");
  detail::check_image_dtype(x, "ZcaWhitening");
  const bool one = x.shape() == sample_shape_;
  STRATA_CHECK(one || (x.dim() == sample_shape_.size() + 1 && Shape(x.shape().begin() + 1, x.shape().end()) == sample_shape_),
               "ZcaWhitening: expected [N, ", sample_shape_.str(), "] samples or one of shape ", sample_shape_.str(),
               ", got ", x.shape().str());
  NoGradGuard no_grad;
  const DType out = float_result(x.dtype());
  const int64_t n = one ? 1 : x.size(0), d = sample_shape_.numel();
  const Tensor flat = reshape(contiguous(x.to(out)), {n, d});
  const Tensor whitened = matmul(flat - mean_.to(out), matrix_.to(out));
  return reshape(contiguous(whitened), x.shape());
}

}  // namespace strata::vision
