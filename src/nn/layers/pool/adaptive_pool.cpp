#include "strata/nn/layers/pool.hpp"

#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

std::string sizes_str(const SpatialSizes& s) {
  std::string out = "{";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "}";
}

}  // namespace

Tensor adaptive_pool(const Tensor& x, const SpatialSizes& output_size, AdaptiveReduce reduce) {
  const int64_t rank = static_cast<int64_t>(output_size.size());
  bool ok = rank >= 1 && x.dim() == rank + 2;
  for (int64_t m : output_size) ok = ok && m > 0;
  STRATA_CHECK(ok, "adaptive_pool: expected an input of rank ", std::to_string(rank + 2),
               " [N, spatial..., C] and positive output sizes, got ", x.shape().str(), " and ", sizes_str(output_size));
  // A box's max or mean is the max or mean over one axis's bin after another: pool axis by axis.
  Tensor out = x;
  for (int64_t a = 0; a < rank; ++a) {
    const int64_t axis = a + 1, n = out.size(axis), m = output_size[a];
    STRATA_CHECK(n > 0, "adaptive_pool: spatial axis ", std::to_string(axis), " of ", x.shape().str(), " is empty");
    std::vector<Tensor> bins;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t start = i * n / m, end = ((i + 1) * n + m - 1) / m;
      Tensor bin = narrow(out, axis, start, end - start);
      bins.push_back(reduce == AdaptiveReduce::max ? amax(bin, {axis}, true) : mean(bin, {axis}, true));
    }
    out = concat(bins, axis);
  }
  return out;
}

AdaptivePool::AdaptivePool(std::string kind, int rank, AdaptiveReduce reduce, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), reduce_(reduce), options_(std::move(options)) {
  check_options(options_, *this);
  SpatialSizes& size = options_.output_size;
  if (size.size() == 1) size.assign(rank, size[0]);
  expect(size.size() == static_cast<size_t>(rank),
         "output_size must be 1 or " + std::to_string(rank) + " positive values, got " + sizes_str(size));
}

Tensor AdaptivePool::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2, "expected a channels-last input of rank " + std::to_string(rank_ + 2) +
                                   " [N, spatial..., C], got " + x.shape().str());
  return adaptive_pool(x, options_.output_size, reduce_);
}

STRATA_DEFINE_OPTIONS(AdaptivePoolOptions, STRATA_ADAPTIVE_POOL_OPTIONS)

STRATA_LAYER("adaptivemaxpool1d", AdaptiveMaxPool1d);
STRATA_LAYER("adaptivemaxpool2d", AdaptiveMaxPool2d);
STRATA_LAYER("adaptivemaxpool3d", AdaptiveMaxPool3d);
STRATA_LAYER("adaptiveavgpool1d", AdaptiveAvgPool1d);
STRATA_LAYER("adaptiveavgpool2d", AdaptiveAvgPool2d);
STRATA_LAYER("adaptiveavgpool3d", AdaptiveAvgPool3d);

}  // namespace strata::nn
