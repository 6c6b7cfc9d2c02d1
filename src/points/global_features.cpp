#include "strata/points/global_features.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "data/symmetric_eigen.hpp"
#include "strata/core/error.hpp"

namespace strata::points {
namespace {

constexpr int kBins = 8;
constexpr int64_t kNeighbours = 5;

struct Features {
  std::vector<std::vector<double>> x;  // one row per example
  std::vector<int64_t> y;
};

Features read_features(const data::Dataset& set, const char* which) {
  Features f;
  for (const data::Example& ex : set) {
    STRATA_CHECK(ex.size() >= 2 && ex.back().numel() == 1, "global_feature_baseline_accuracy: expected ", which,
                 " examples {points, ..., label} with a single label last");
    f.x.push_back(global_shape_features(ex[0]));
    f.y.push_back(ex.back().item<int64_t>());
    STRATA_CHECK(f.y.back() >= 0, "global_feature_baseline_accuracy: negative label ", f.y.back(), " in ", which);
  }
  STRATA_CHECK(!f.x.empty(), "global_feature_baseline_accuracy: the ", which, " set is empty");
  return f;
}

// Each column shifted by train's mean and divided by its deviation (1 where it is constant).
void standardise(Features& train, Features& test) {
  const size_t d = train.x[0].size();
  for (size_t k = 0; k < d; ++k) {
    double mean = 0, sq = 0;
    for (const auto& row : train.x) mean += row[k];
    mean /= static_cast<double>(train.x.size());
    for (const auto& row : train.x) sq += (row[k] - mean) * (row[k] - mean);
    double sd = std::sqrt(sq / static_cast<double>(train.x.size()));
    if (!(sd > 1e-12)) sd = 1;
    for (Features* f : {&train, &test})
      for (auto& row : f->x) row[k] = (row[k] - mean) / sd;
  }
}

double nearest_neighbours_accuracy(const Features& train, const Features& test, int64_t classes) {
  int64_t right = 0;
  std::vector<std::pair<double, int64_t>> by_distance(train.x.size());
  for (size_t i = 0; i < test.x.size(); ++i) {
    for (size_t j = 0; j < train.x.size(); ++j) {
      double sq = 0;
      for (size_t k = 0; k < train.x[j].size(); ++k) sq += (train.x[j][k] - test.x[i][k]) * (train.x[j][k] - test.x[i][k]);
      by_distance[j] = {sq, train.y[j]};
    }
    const size_t k = std::min<size_t>(kNeighbours, by_distance.size());
    std::partial_sort(by_distance.begin(), by_distance.begin() + static_cast<std::ptrdiff_t>(k), by_distance.end());
    std::vector<int64_t> votes(static_cast<size_t>(classes), 0);
    int64_t best = by_distance[0].second;  // ties go to the nearest neighbour's class
    for (size_t n = 0; n < k; ++n)
      if (++votes[by_distance[n].second] > votes[best]) best = by_distance[n].second;
    right += best == test.y[i];
  }
  return static_cast<double>(right) / static_cast<double>(test.x.size());
}

double softmax_regression_accuracy(const Features& train, const Features& test, int64_t classes) {
  const size_t d = train.x[0].size() + 1, c = static_cast<size_t>(classes), n = train.x.size();
  constexpr int kSteps = 400;
  constexpr double kRate = 0.5, kDecay = 1e-4;
  std::vector<double> w(d * c, 0.0), grad(d * c), p(c);
  auto scores = [&](const std::vector<double>& row) {
    for (size_t j = 0; j < c; ++j) {
      p[j] = w[(d - 1) * c + j];  // the bias
      for (size_t k = 0; k + 1 < d; ++k) p[j] += row[k] * w[k * c + j];
    }
  };
  for (int step = 0; step < kSteps; ++step) {
    for (size_t k = 0; k < d * c; ++k) grad[k] = kDecay * w[k];
    for (size_t i = 0; i < n; ++i) {
      scores(train.x[i]);
      const double top = *std::max_element(p.begin(), p.end());
      double total = 0;
      for (double& v : p) total += (v = std::exp(v - top));
      for (size_t j = 0; j < c; ++j) {
        const double g = (p[j] / total - (static_cast<int64_t>(j) == train.y[i])) / static_cast<double>(n);
        for (size_t k = 0; k + 1 < d; ++k) grad[k * c + j] += g * train.x[i][k];
        grad[(d - 1) * c + j] += g;
      }
    }
    for (size_t k = 0; k < d * c; ++k) w[k] -= kRate * grad[k];
  }
  int64_t right = 0;
  for (size_t i = 0; i < test.x.size(); ++i) {
    scores(test.x[i]);
    right += std::max_element(p.begin(), p.end()) - p.begin() == test.y[i];
  }
  return static_cast<double>(right) / static_cast<double>(test.x.size());
}

}  // namespace

std::vector<double> global_shape_features(const Tensor& cloud) {
  STRATA_CHECK(cloud.defined() && cloud.dim() == 2 && cloud.size(1) >= 3 && cloud.size(0) >= 1,
               "global_shape_features: expected a cloud [P >= 1, 3 + F], got ",
               cloud.defined() ? cloud.shape().str() : std::string("an undefined tensor"));
  const std::vector<double> v = cloud.to_vector<double>();
  const int64_t p = cloud.size(0), cols = cloud.size(1);
  double lo[3], hi[3], mean[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = v[k];
  for (int64_t i = 0; i < p; ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = v[i * cols + k];
      lo[k] = std::min(lo[k], x), hi[k] = std::max(hi[k], x), mean[k] += x / static_cast<double>(p);
    }
  std::vector<double> covariance(9, 0.0), radius(static_cast<size_t>(p));
  for (int64_t i = 0; i < p; ++i) {
    double sq = 0;
    for (int a = 0; a < 3; ++a) {
      const double da = v[i * cols + a] - mean[a];
      sq += da * da;
      for (int b = 0; b < 3; ++b) covariance[a * 3 + b] += da * (v[i * cols + b] - mean[b]) / static_cast<double>(p);
    }
    radius[i] = std::sqrt(sq);
  }
  std::vector<double> extents{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  std::vector<double> eigen = data::detail::symmetric_eigen(covariance, 3).values;
  std::sort(extents.begin(), extents.end());
  std::sort(eigen.begin(), eigen.end());
  std::vector<double> f = extents;
  f.insert(f.end(), eigen.begin(), eigen.end());
  const double r_mean = std::accumulate(radius.begin(), radius.end(), 0.0) / static_cast<double>(p);
  double r_sq = 0;
  for (double r : radius) r_sq += (r - r_mean) * (r - r_mean);
  const auto [r_min, r_max] = std::minmax_element(radius.begin(), radius.end());
  f.insert(f.end(), {r_mean, std::sqrt(r_sq / static_cast<double>(p)), *r_min, *r_max});
  std::vector<double> histogram(kBins, 0.0);
  for (double r : radius) {
    const int bin = *r_max > 0 ? std::min(kBins - 1, static_cast<int>(r / *r_max * kBins)) : 0;
    histogram[bin] += 1.0 / static_cast<double>(p);
  }
  f.insert(f.end(), histogram.begin(), histogram.end());
  return f;
}

double global_feature_baseline_accuracy(const data::Dataset& train, const data::Dataset& test) {
  Features tr = read_features(train, "train"), te = read_features(test, "test");
  standardise(tr, te);
  const int64_t classes = 1 + std::max(*std::max_element(tr.y.begin(), tr.y.end()),
                                       *std::max_element(te.y.begin(), te.y.end()));
  return std::max(nearest_neighbours_accuracy(tr, te, classes), softmax_regression_accuracy(tr, te, classes));
}

}  // namespace strata::points
