#include "strata/nn/layers/pool.hpp"

#include "strata/nn/option_table.hpp"

namespace strata::nn {
namespace {

std::string layout(int rank) {
  static const char* spatial[] = {"", "W, ", "H, W, ", "D, H, W, "};
  return std::string("[N, ") + spatial[rank] + "C]";
}

}  // namespace

Pool2d::Pool2d(std::string kind, int rank, PoolFn pool, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), pool_(pool), options_(std::move(options)) {
  if (options_.filter_size.empty()) options_.filter_size.assign(rank, 2);
  check_options(options_, *this);
}

GlobalPool::GlobalPool(std::string kind, int rank, GlobalFn pool, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), pool_(pool), options_(std::move(options)) {
  check_options(options_, *this);
}

Tensor PoolNd::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2, "expects input " + layout(rank_) + ", got " + x.shape().str());
  return Pool2d::forward(x);
}

Tensor GlobalPool::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2, "expects input " + layout(rank_) + ", got " + x.shape().str());
  return pool_(x);
}

STRATA_DEFINE_OPTIONS(WindowPoolOptions, STRATA_WINDOW_POOL_OPTIONS)
STRATA_DEFINE_OPTIONS(GlobalPoolOptions, STRATA_GLOBAL_POOL_OPTIONS)

STRATA_LAYER("maxpool1d", MaxPool1d);
STRATA_LAYER("maxpool2d", MaxPool2d);
STRATA_LAYER("maxpool3d", MaxPool3d);
STRATA_LAYER("meanpool1d", MeanPool1d);
STRATA_LAYER("meanpool2d", MeanPool2d);
STRATA_LAYER("meanpool3d", MeanPool3d);
STRATA_LAYER("globalmaxpool1d", GlobalMaxPool1d);
STRATA_LAYER("globalmaxpool2d", GlobalMaxPool2d);
STRATA_LAYER("globalmaxpool3d", GlobalMaxPool3d);
STRATA_LAYER("globalmeanpool1d", GlobalMeanPool1d);
STRATA_LAYER("globalmeanpool2d", GlobalMeanPool2d);
STRATA_LAYER("globalmeanpool3d", GlobalMeanPool3d);

}  // namespace strata::nn
