#include "strata/nn/pool_variants.hpp"

namespace strata::nn {
namespace {

std::string layout(int rank) {
  static const char* spatial[] = {"", "W, ", "H, W, ", "D, H, W, "};
  return std::string("[N, ") + spatial[rank] + "C]";
}

}  // namespace

Tensor PoolNd::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2, "expects input " + layout(rank_) + ", got " + x.shape().str());
  return Pool2d::forward(x);
}

Tensor GlobalPool::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2, "expects input " + layout(rank_) + ", got " + x.shape().str());
  return pool_(x);
}

}  // namespace strata::nn
