#include "strata/nn/conv_variants.hpp"

#include "conv_config.hpp"
#include "fused_activation.hpp"

namespace strata::nn {

ConvLayer::ConvLayer(std::string kind, int rank, bool transposed, ConvFn conv, int64_t n_filter,
                     SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                     int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : Layer(std::move(kind), std::move(name)), rank_(rank), transposed_(transposed), conv_(conv), n_filter_(n_filter),
      in_channels_(in_channels), filter_size_(std::move(filter_size)), act_(std::move(act)),
      options_(std::move(options)), use_bias_(use_bias), w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(n_filter > 0, "n_filter must be positive, got " + std::to_string(n_filter));
  if (filter_size_.size() == 1) filter_size_.assign(rank, filter_size_[0]);
  expect(static_cast<int>(filter_size_.size()) == rank,
         "filter_size must have 1 or " + std::to_string(rank) + " values, got " + std::to_string(filter_size_.size()));
  expect(options_.groups > 0 && n_filter % options_.groups == 0,
         "groups (" + std::to_string(options_.groups) + ") must divide n_filter (" + std::to_string(n_filter) + ")");
}

std::string ConvLayer::layout() const {
  static const char* spatial[] = {"", "W, ", "H, W, ", "D, H, W, "};
  return std::string("[N, ") + spatial[rank_] + "C]";
}

void ConvLayer::build(const Shape& s) {
  expect(s.size() == rank_ + 2, "expects input " + layout() + ", got " + s.str());
  expect(in_channels_ < 0 || s.back() == in_channels_,
         "was declared with " + std::to_string(in_channels_) + " input channels but got input of shape " + s.str());
  in_channels_ = s.back();
  const int64_t groups = options_.groups;
  expect(in_channels_ % groups == 0,
         "groups (" + std::to_string(groups) + ") must divide the " + std::to_string(in_channels_) + " input channels");
  Shape w(filter_size_.begin(), filter_size_.end());
  w.push_back(transposed_ ? n_filter_ / groups : in_channels_ / groups);
  w.push_back(transposed_ ? in_channels_ : n_filter_);
  W = add_weight("W", w, w_init_);
  if (use_bias_) b = add_weight("b", {n_filter_}, b_init_);
}

Tensor ConvLayer::forward(const Tensor& x) {
  expect(x.dim() == rank_ + 2 && x.shape().back() == in_channels_,
         "expected input " + layout() + " with C = " + std::to_string(in_channels_) + ", got " + x.shape().str());
  return detail::convolve_and_activate(conv_, x, W, b, options_, act_, /*can_fuse=*/!transposed_);
}

Conv1d::Conv1d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
               int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : ConvLayer("conv1d", 1, false, conv1d, n_filter, std::move(filter_size), std::move(act), std::move(options),
                std::move(name), in_channels, use_bias, std::move(w_init), std::move(b_init)) {}

Conv3d::Conv3d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
               int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : ConvLayer("conv3d", 3, false, conv3d, n_filter, std::move(filter_size), std::move(act), std::move(options),
                std::move(name), in_channels, use_bias, std::move(w_init), std::move(b_init)) {}

DeConv2d::DeConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                   int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : ConvLayer("deconv2d", 2, true, conv_transpose2d, n_filter, std::move(filter_size), std::move(act),
                std::move(options), std::move(name), in_channels, use_bias, std::move(w_init), std::move(b_init)) {}

DeConv3d::DeConv3d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                   int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : ConvLayer("deconv3d", 3, true, conv_transpose3d, n_filter, std::move(filter_size), std::move(act),
                std::move(options), std::move(name), in_channels, use_bias, std::move(w_init), std::move(b_init)) {}

void ConvLayer::get_config(nlohmann::json& c) const {
  c = detail::conv_config(n_filter_, filter_size_, act_, options_, in_channels_, use_bias_, *this);
}

STRATA_LAYER_CLASS("conv1d", detail::conv_from_config<Conv1d>);
STRATA_LAYER_CLASS("conv3d", detail::conv_from_config<Conv3d>);
STRATA_LAYER_CLASS("deconv2d", detail::conv_from_config<DeConv2d>);
STRATA_LAYER_CLASS("deconv3d", detail::conv_from_config<DeConv3d>);

}  // namespace strata::nn
