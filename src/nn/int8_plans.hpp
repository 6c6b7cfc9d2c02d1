// The int8 layers' prepared ops (strata/ops/prepared.hpp), one per input shape: the weights are
// packed and a primitive made at the first call of a shape, so repeated batch-1 calls create
// nothing and a call that finds its op allocates nothing. Belongs to one layer, used one call at
// a time (the layer's call lock).
#pragma once
#include <vector>

#include "strata/ops/prepared.hpp"

namespace strata::nn::detail {

class Int8Plans {
 public:
  // The op made for inputs of `shape`, or null when there is none yet.
  const ops::PreparedOp* find(const Shape& shape) const;
  // Keeps `op` for inputs of op.input_shape(). Past kMaxPlans shapes (inputs of ever new sizes)
  // it starts over; a served model sees one shape per batch size.
  const ops::PreparedOp& add(ops::PreparedOp op);

 private:
  static constexpr size_t kMaxPlans = 64;
  std::vector<ops::PreparedOp> plans_;
};

}  // namespace strata::nn::detail
