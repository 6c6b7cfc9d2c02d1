#include "strata/nn/conv.hpp"

#include "conv_config.hpp"
#include "fused_activation.hpp"

namespace strata::nn {

Conv2d::Conv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
               int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : Layer("conv2d", std::move(name)), n_filter_(n_filter), in_channels_(in_channels),
      filter_size_(std::move(filter_size)), act_(std::move(act)), options_(std::move(options)), use_bias_(use_bias),
      w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(n_filter > 0, "n_filter must be positive, got " + std::to_string(n_filter));
  if (filter_size_.size() == 1) filter_size_.push_back(filter_size_[0]);
  expect(filter_size_.size() == 2, "filter_size must have 1 or 2 values");
}

void Conv2d::build(const Shape& s) {
  expect(s.size() == 4, "expects NHWC input [batch, height, width, channels], got " + s.str());
  expect(in_channels_ < 0 || s[3] == in_channels_,
         "was declared with " + std::to_string(in_channels_) + " input channels but got input of shape " + s.str());
  in_channels_ = s[3];
  expect(in_channels_ % options_.groups == 0, "groups must divide the input channels");
  W = add_weight("W", {filter_size_[0], filter_size_[1], in_channels_ / options_.groups, n_filter_}, w_init_);
  if (use_bias_) b = add_weight("b", {n_filter_}, b_init_);
}

Tensor Conv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == in_channels_, "expected input of shape [N, H, W, " +
                                                        std::to_string(in_channels_) + "], got " + x.shape().str());
  return detail::convolve_and_activate(conv2d, x, W, b, options_, act_);
}

void Conv2d::get_config(nlohmann::json& c) const {
  c = detail::conv_config(n_filter_, filter_size_, act_, options_, in_channels_, use_bias_, *this);
}

STRATA_LAYER_CLASS("conv2d", detail::conv_from_config<Conv2d>);

}  // namespace strata::nn
