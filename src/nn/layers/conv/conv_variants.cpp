#include "strata/nn/layers/conv.hpp"

#include "strata/nn/option_table.hpp"

#include "conv_config.hpp"
#include "fused_activation.hpp"

namespace strata::nn {

STRATA_DEFINE_OPTIONS(ConvLayerOptions, STRATA_CONV_LAYER_OPTIONS)

ConvLayer::ConvLayer(std::string kind, int rank, bool transposed, ConvFn conv, ConvLayerOptions options,
                     std::string name)
    : Layer(std::move(kind), std::move(name)),
      rank_(rank),
      transposed_(transposed),
      conv_(conv),
      options_(std::move(options)) {
  check_options(options_, *this);
  SpatialSizes& k = options_.filter_size;
  if (k.size() == 1) k.assign(rank, k[0]);
  expect(static_cast<int>(k.size()) == rank,
         "filter_size must have 1 or " + std::to_string(rank) + " values, got " + std::to_string(k.size()));
  const int64_t n_filter = options_.n_filter, groups = options_.options.groups;
  expect(groups > 0 && n_filter % groups == 0,
         "groups (" + std::to_string(groups) + ") must divide n_filter (" + std::to_string(n_filter) + ")");
}

ConvLayer::ConvLayer(std::string kind, int rank, bool transposed, ConvFn conv, int64_t n_filter,
                     SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                     int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : ConvLayer(std::move(kind), rank, transposed, conv,
                ConvLayerOptions{.n_filter = n_filter,
                                 .filter_size = std::move(filter_size),
                                 .act = std::move(act),
                                 .options = std::move(options),
                                 .in_channels = in_channels,
                                 .use_bias = use_bias,
                                 .w_init = std::move(w_init),
                                 .b_init = std::move(b_init)},
                std::move(name)) {}

std::string ConvLayer::layout() const {
  static const char* spatial[] = {"", "W, ", "H, W, ", "D, H, W, "};
  return std::string("[N, ") + spatial[rank_] + "C]";
}

void ConvLayer::build(const Shape& s) {
  ConvLayerOptions& o = options_;
  expect(s.size() == rank_ + 2, "expects input " + layout() + ", got " + s.str());
  expect(o.in_channels < 0 || s.back() == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got input of shape " + s.str());
  o.in_channels = s.back();
  const int64_t groups = o.options.groups;
  expect(o.in_channels % groups == 0, "groups (" + std::to_string(groups) + ") must divide the " +
                                          std::to_string(o.in_channels) + " input channels");
  Shape w(o.filter_size.begin(), o.filter_size.end());
  w.push_back(transposed_ ? o.n_filter / groups : o.in_channels / groups);
  w.push_back(transposed_ ? o.in_channels : o.n_filter);
  W = add_weight("W", w, o.w_init);
  if (o.use_bias) b = add_weight("b", {o.n_filter}, o.b_init);
}

Tensor ConvLayer::forward(const Tensor& x) {
  const int64_t in = options_.in_channels;
  expect(x.dim() == rank_ + 2 && x.shape().back() == in,
         "expected input " + layout() + " with C = " + std::to_string(in) + ", got " + x.shape().str());
  return detail::convolve_and_activate(conv_, x, W, b, options_.options, options_.act, /*can_fuse=*/!transposed_);
}

STRATA_CONV_LAYER_CLASS(Conv1d, "conv1d", 1, false, conv1d)
STRATA_CONV_LAYER_CLASS(Conv3d, "conv3d", 3, false, conv3d)
STRATA_CONV_LAYER_CLASS(DeConv2d, "deconv2d", 2, true, conv_transpose2d)
STRATA_CONV_LAYER_CLASS(DeConv3d, "deconv3d", 3, true, conv_transpose3d)

Conv1d::Conv1d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
               int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : Conv1d(Options{.n_filter = n_filter,
                     .filter_size = std::move(filter_size),
                     .act = std::move(act),
                     .options = std::move(options),
                     .in_channels = in_channels,
                     .use_bias = use_bias,
                     .w_init = std::move(w_init),
                     .b_init = std::move(b_init)},
             std::move(name)) {}

Conv3d::Conv3d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
               int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : Conv3d(Options{.n_filter = n_filter,
                     .filter_size = std::move(filter_size),
                     .act = std::move(act),
                     .options = std::move(options),
                     .in_channels = in_channels,
                     .use_bias = use_bias,
                     .w_init = std::move(w_init),
                     .b_init = std::move(b_init)},
             std::move(name)) {}

DeConv2d::DeConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                   int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : DeConv2d(Options{.n_filter = n_filter,
                       .filter_size = std::move(filter_size),
                       .act = std::move(act),
                       .options = std::move(options),
                       .in_channels = in_channels,
                       .use_bias = use_bias,
                       .w_init = std::move(w_init),
                       .b_init = std::move(b_init)},
               std::move(name)) {}

DeConv3d::DeConv3d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                   int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : DeConv3d(Options{.n_filter = n_filter,
                       .filter_size = std::move(filter_size),
                       .act = std::move(act),
                       .options = std::move(options),
                       .in_channels = in_channels,
                       .use_bias = use_bias,
                       .w_init = std::move(w_init),
                       .b_init = std::move(b_init)},
               std::move(name)) {}

STRATA_DEFINE_OPTIONS(Conv1dOptions, STRATA_CONV1D_OPTIONS)
STRATA_DEFINE_OPTIONS(Conv3dOptions, STRATA_CONV3D_OPTIONS)
STRATA_DEFINE_OPTIONS(DeConv2dOptions, STRATA_DECONV2D_OPTIONS)
STRATA_DEFINE_OPTIONS(DeConv3dOptions, STRATA_DECONV3D_OPTIONS)
STRATA_LAYER("conv1d", Conv1d);
STRATA_LAYER("conv3d", Conv3d);
STRATA_LAYER("deconv2d", DeConv2d);
STRATA_LAYER("deconv3d", DeConv3d);

}  // namespace strata::nn
