// A yardstick for point-cloud classification sets: how well simple global statistics of a cloud
// (no structure) tell its class. A set on which these reach high accuracy does not need a
// point-cloud network; the synthetic shapes are tuned to keep it under 75%.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/data/dataset.hpp"

namespace strata::points {

// 18 numbers of a cloud [P, 3 + F] (float): its bounding box's extents, sorted; its covariance's
// eigenvalues, sorted; the distances of its points from their centroid: mean, standard
// deviation, min, max, and their histogram in 8 bins over [0, max] (fractions of the points).
std::vector<double> global_shape_features(const Tensor& cloud);

// Test accuracy of the better of two classifiers trained on `train` and scored on `test`, both
// on global_shape_features standardised with train's mean and deviation: 5 nearest neighbours
// (Euclidean, majority vote, ties to the nearest) and softmax regression (full-batch gradient
// descent). Examples are {points, ..., label}: the class label (integer) is the last tensor.
double global_feature_baseline_accuracy(const data::Dataset& train, const data::Dataset& test);

}  // namespace strata::points
