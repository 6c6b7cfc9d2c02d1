// The Fréchet distance between two sets of features (FID when the features are Inception's; the
// DCGAN example of issue 16 uses a Fashion-MNIST classifier's): the distance between Gaussians
// fitted to each set, as in Heusel et al. and pytorch-fid.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::data {

// a [N, D] and b [M, D] (float; N, M >= 2): |mu_a - mu_b|^2 + tr(S_a + S_b - 2 (S_a S_b)^(1/2)),
// S the unbiased covariances (numpy.cov's), the square root's trace taken as
// tr((S_a^(1/2) S_b S_a^(1/2))^(1/2)) by two symmetric eigen-decompositions in double.
// O(D^3): meant for D up to a few hundred (the penultimate layer of a small classifier).
double frechet_distance(const Tensor& a, const Tensor& b);

}  // namespace strata::data
