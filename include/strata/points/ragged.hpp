// Ragged batches of point clouds: clouds of different sizes stored end to end, [total, D], with
// offsets [B + 1] (cloud i is rows offsets[i] .. offsets[i + 1]), as PyTorch Geometric's batch
// vector and Open3D-ML's row splits. Layers take fixed-size batches [B, P, D]; to_fixed
// resamples each cloud to P points.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::points {

struct RaggedClouds {
  Tensor points;                 // [total, D], the clouds end to end
  std::vector<int64_t> offsets;  // B + 1 entries, from 0 to total, not decreasing

  // Clouds [P_i, D] with the same D and dtype, end to end.
  static RaggedClouds from_clouds(const std::vector<Tensor>& clouds);
  int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
  // Cloud i as a view [P_i, D] of `points`.
  Tensor cloud(int64_t i) const;
};

// Each cloud resampled to `count` points -> [B, count, D]: a random subset without repetition
// when it has more, all of its points and then random repeats when it has fewer (the usual
// "pad by duplication", which leaves max-pooled features unchanged). The same seed gives the
// same batch. An empty cloud is refused by index.
Tensor to_fixed(const RaggedClouds& batch, int64_t count, uint64_t seed);

}  // namespace strata::points
