#include "strata/points/ragged.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/indexing.hpp"

namespace strata::points {

RaggedClouds RaggedClouds::from_clouds(const std::vector<Tensor>& clouds) {
  STRATA_CHECK(!clouds.empty(), "RaggedClouds::from_clouds: expected at least one cloud");
  RaggedClouds batch;
  batch.offsets.push_back(0);
  for (size_t i = 0; i < clouds.size(); ++i) {
    const Tensor& c = clouds[i];
    STRATA_CHECK(c.dim() == 2 && c.dtype() == clouds[0].dtype() && c.size(1) == clouds[0].size(1),
                 "RaggedClouds::from_clouds: cloud ", std::to_string(i), " is ", c.shape().str(), " ",
                 dtype_name(c.dtype()), "; expected [P, ", std::to_string(clouds[0].dim() == 2 ? clouds[0].size(1) : -1),
                 "] ", dtype_name(clouds[0].dtype()), " like cloud 0");
    batch.offsets.push_back(batch.offsets.back() + c.size(0));
  }
  batch.points = concat(clouds, 0);
  return batch;
}

Tensor RaggedClouds::cloud(int64_t i) const {
  STRATA_CHECK(i >= 0 && i < size(), "RaggedClouds::cloud: index ", std::to_string(i), " outside [0, ",
               std::to_string(size()), ")");
  return points.narrow(0, offsets[i], offsets[i + 1] - offsets[i]);
}

Tensor to_fixed(const RaggedClouds& batch, int64_t count, uint64_t seed) {
  STRATA_CHECK(count >= 1, "to_fixed: expected count >= 1, got ", std::to_string(count));
  std::mt19937_64 engine(seed);
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(batch.size() * count));
  std::vector<int64_t> order;
  for (int64_t i = 0; i < batch.size(); ++i) {
    const int64_t begin = batch.offsets[i], n = batch.offsets[i + 1] - begin;
    STRATA_CHECK(n >= 1, "to_fixed: cloud ", std::to_string(i), " is empty");
    order.resize(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), begin);
    if (n >= count) {
      // A partial Fisher-Yates shuffle: the first `count` are a uniform subset.
      for (int64_t j = 0; j < count; ++j) {
        std::uniform_int_distribution<int64_t> pick(j, n - 1);
        std::swap(order[j], order[pick(engine)]);
      }
      rows.insert(rows.end(), order.begin(), order.begin() + count);
    } else {
      rows.insert(rows.end(), order.begin(), order.end());
      std::uniform_int_distribution<int64_t> pick(begin, begin + n - 1);
      for (int64_t j = n; j < count; ++j) rows.push_back(pick(engine));
    }
  }
  const Tensor picked = index_select(batch.points, 0, from_vector(rows));
  return picked.reshape({batch.size(), count, batch.points.size(1)});
}

}  // namespace strata::points
