// Statistics fitted on a dataset and applied to later data (Keras' ImageDataGenerator.fit):
// featurewise normalisation (per-channel mean and std) and ZCA whitening.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::vision {

// (x - mean[c]) / (std[c] + epsilon) with c the last axis (channels last: HWC, NHWC, [N, C]).
class FeaturewiseNormalization {
 public:
  // mean and population std of each channel over every other axis of `data` (e.g. an NHWC batch
  // or a whole dataset stacked).
  static FeaturewiseNormalization fit(const Tensor& data, double epsilon = 1e-6);
  FeaturewiseNormalization(std::vector<double> mean, std::vector<double> std, double epsilon = 1e-6);

  // Any tensor whose last axis has the fitted channels; float32 out (float64 stays float64).
  Tensor operator()(const Tensor& x) const;
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& std() const { return std_; }

 private:
  std::vector<double> mean_, std_;
  double epsilon_;
};

// Zero-phase whitening: samples flattened to D features, centred on the fitted mean, times
// W = U diag(1 / sqrt(lambda + epsilon)) U^T from the eigen-decomposition of their covariance
// (Keras' and TensorLayer's zca_whitening; the centring is included here). Whitened data has
// covariance close to the identity. Fitting costs O(N D^2) for the covariance and a Jacobi
// eigen-solver in O(D^3) per sweep: fine for a few hundred features (e.g. 16x16 grey patches).
class ZcaWhitening {
 public:
  // data: [N, ...] samples along axis 0, N >= 2.
  static ZcaWhitening fit(const Tensor& data, double epsilon = 1e-6);

  // x: [N, ...] with the fitted sample shape, or one sample of that shape; float32 out
  // (float64 stays float64).
  Tensor operator()(const Tensor& x) const;
  const Tensor& mean() const { return mean_; }      // [D], float64
  const Tensor& matrix() const { return matrix_; }  // [D, D], float64, symmetric
  const Shape& sample_shape() const { return sample_shape_; }

 private:
  Shape sample_shape_;
  Tensor mean_, matrix_;
};

}  // namespace strata::vision
