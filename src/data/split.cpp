// split and kfold: partitions of a dataset's indices.
#include <numeric>

#include "strata/data/dataset.hpp"

namespace strata::data {

namespace {

std::vector<int64_t> order(int64_t n, std::optional<uint64_t> seed) {
  if (seed) return permutation(n, *seed);
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

}  // namespace

std::vector<Dataset> split(const Dataset& dataset, const std::vector<double>& fractions,
                           std::optional<uint64_t> shuffle_seed) {
  STRATA_CHECK(!fractions.empty(), "split: expected at least one fraction");
  double total = 0;
  for (double f : fractions) {
    STRATA_CHECK(f >= 0, "split: fractions must be >= 0, got ", f);
    total += f;
  }
  STRATA_CHECK(total <= 1 + 1e-9, "split: fractions add up to ", total, ", expected at most 1");
  const int64_t n = dataset.size();
  const std::vector<int64_t> indices = order(n, shuffle_seed);
  std::vector<Dataset> parts;
  int64_t start = 0;
  for (size_t p = 0; p < fractions.size(); ++p) {
    int64_t count = static_cast<int64_t>(fractions[p] * static_cast<double>(n) + 1e-9);
    if (p + 1 == fractions.size() && total >= 1 - 1e-9) count = n - start;
    count = std::min(count, n - start);
    parts.push_back(dataset.subset({indices.begin() + start, indices.begin() + start + count}));
    start += count;
  }
  return parts;
}

std::vector<std::vector<int64_t>> kfold_indices(int64_t n, int k, std::optional<uint64_t> shuffle_seed) {
  STRATA_CHECK(k >= 2 && k <= n, "kfold: k must be in [2, ", n, "] for ", n, " examples, got ", k);
  const std::vector<int64_t> indices = order(n, shuffle_seed);
  std::vector<std::vector<int64_t>> folds(k);
  int64_t start = 0;
  for (int f = 0; f < k; ++f) {
    // The first n % k folds take one extra example.
    const int64_t count = n / k + (f < n % k ? 1 : 0);
    folds[f].assign(indices.begin() + start, indices.begin() + start + count);
    start += count;
  }
  return folds;
}

std::vector<Fold> kfold(const Dataset& dataset, int k, std::optional<uint64_t> shuffle_seed) {
  const auto folds = kfold_indices(dataset.size(), k, shuffle_seed);
  std::vector<Fold> out;
  for (int f = 0; f < k; ++f) {
    std::vector<int64_t> train;
    for (int g = 0; g < k; ++g)
      if (g != f) train.insert(train.end(), folds[g].begin(), folds[g].end());
    out.push_back(Fold{dataset.subset(std::move(train)), dataset.subset(folds[f])});
  }
  return out;
}

}  // namespace strata::data
