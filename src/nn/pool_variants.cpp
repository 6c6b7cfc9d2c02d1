#include "strata/nn/pool_variants.hpp"

#include "strata/nn/layer_config.hpp"

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

using nlohmann::json;


void Pool2d::get_config(json& c) const {
  c = {{"filter_size", filter_size_}, {"options", pool_options_config(options_)}};
}

template <class L>
std::shared_ptr<Layer> pool_from_config(const json& c, const std::string& name) {
  return std::make_shared<L>(dims_of(c.at("filter_size")), pool_options_from(c.at("options")), name);
}

template <class L>
std::shared_ptr<Layer> global_pool_from_config(const json&, const std::string& name) {
  return std::make_shared<L>(name);
}

STRATA_LAYER_CLASS("maxpool1d", pool_from_config<MaxPool1d>);
STRATA_LAYER_CLASS("maxpool2d", pool_from_config<MaxPool2d>);
STRATA_LAYER_CLASS("maxpool3d", pool_from_config<MaxPool3d>);
STRATA_LAYER_CLASS("meanpool1d", pool_from_config<MeanPool1d>);
STRATA_LAYER_CLASS("meanpool2d", pool_from_config<MeanPool2d>);
STRATA_LAYER_CLASS("meanpool3d", pool_from_config<MeanPool3d>);
STRATA_LAYER_CLASS("globalmaxpool1d", global_pool_from_config<GlobalMaxPool1d>);
STRATA_LAYER_CLASS("globalmaxpool2d", global_pool_from_config<GlobalMaxPool2d>);
STRATA_LAYER_CLASS("globalmaxpool3d", global_pool_from_config<GlobalMaxPool3d>);
STRATA_LAYER_CLASS("globalmeanpool1d", global_pool_from_config<GlobalMeanPool1d>);
STRATA_LAYER_CLASS("globalmeanpool2d", global_pool_from_config<GlobalMeanPool2d>);
STRATA_LAYER_CLASS("globalmeanpool3d", global_pool_from_config<GlobalMeanPool3d>);

}  // namespace strata::nn
