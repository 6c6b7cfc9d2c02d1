#include "strata/nn/adaptive_pool.hpp"

#include "strata/nn/layer_config.hpp"
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

AdaptivePool::AdaptivePool(std::string kind, int rank, AdaptiveReduce reduce, SpatialSizes output_size,
                           std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), reduce_(reduce), output_size_(std::move(output_size)) {
  if (output_size_.size() == 1) output_size_.assign(rank, output_size_[0]);
  bool ok = output_size_.size() == static_cast<size_t>(rank);
  for (int64_t m : output_size_) ok = ok && m > 0;
  expect(ok, "output_size must be 1 or " + std::to_string(rank) + " positive values, got " + sizes_str(output_size_));
}

Tensor AdaptivePool::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2, "expected a channels-last input of rank " + std::to_string(rank_ + 2) +
                                   " [N, spatial..., C], got " + x.shape().str());
  return adaptive_pool(x, output_size_, reduce_);
}

void AdaptivePool::get_config(nlohmann::json& c) const { c = {{"output_size", output_size_}}; }

template <class L>
std::shared_ptr<Layer> adaptive_pool_from_config(const nlohmann::json& c, const std::string& name) {
  return std::make_shared<L>(dims_of(c.at("output_size")), name);
}

STRATA_LAYER_CLASS("adaptivemaxpool1d", adaptive_pool_from_config<AdaptiveMaxPool1d>);
STRATA_LAYER_CLASS("adaptivemaxpool2d", adaptive_pool_from_config<AdaptiveMaxPool2d>);
STRATA_LAYER_CLASS("adaptivemaxpool3d", adaptive_pool_from_config<AdaptiveMaxPool3d>);
STRATA_LAYER_CLASS("adaptiveavgpool1d", adaptive_pool_from_config<AdaptiveAvgPool1d>);
STRATA_LAYER_CLASS("adaptiveavgpool2d", adaptive_pool_from_config<AdaptiveAvgPool2d>);
STRATA_LAYER_CLASS("adaptiveavgpool3d", adaptive_pool_from_config<AdaptiveAvgPool3d>);

}  // namespace strata::nn
