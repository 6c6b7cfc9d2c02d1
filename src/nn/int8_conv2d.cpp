// Int8Conv2d (nn/int8.hpp): Conv2d as a prepared int8 op (oneDNN's int8 convolution on the CPU), NHWC.
#include "strata/nn/int8.hpp"
#include "strata/nn/option_table.hpp"

#include "nn/layers/conv/window_geometry.hpp"

namespace strata::nn {

Int8Conv2d::Int8Conv2d(Options options, std::string name)
    : Int8Layer("int8_conv2d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  SpatialSizes& k = options_.filter_size;
  if (k.size() == 1) k.push_back(k[0]);
  expect(k.size() == 2, "filter_size must have 1 or 2 values");
  expect(options_.options.groups == 1, "supports groups 1 only, got " + std::to_string(options_.options.groups));
}

void Int8Conv2d::build(const Shape& s) {
  Options& o = options_;
  expect(s.size() == 4, "expects NHWC input [batch, height, width, channels], got " + s.str());
  expect(o.in_channels < 0 || s[3] == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got input of shape " + s.str());
  o.in_channels = s[3];
  add_int8_weights({o.filter_size[0], o.filter_size[1], o.in_channels, o.n_filter}, o.use_bias);
}

Tensor Int8Conv2d::forward(const Tensor& x) {
  const Options& o = options_;
  expect(x.dim() == 4 && x.size(3) == o.in_channels && x.dtype() == kFloat32,
         "expected float32 input of shape [N, H, W, " + std::to_string(o.in_channels) + "], got " +
             dtype_name(x.dtype()) + " " + x.shape().str());
  const auto rows = detail::axis_window(x.size(1), 0, o.filter_size, o.options, "int8_conv2d");
  const auto cols = detail::axis_window(x.size(2), 1, o.filter_size, o.options, "int8_conv2d");
  const Shape out_shape{x.size(0), rows.out, cols.out, o.n_filter};
  if (x.is_meta()) return Tensor::empty(out_shape, kFloat32, x.device());
  return run_int8(x, out_shape, o.input_scale, o.input_zero_point, o.act, &o.options);
}

STRATA_DEFINE_OPTIONS(Int8Conv2dOptions, STRATA_INT8_CONV2D_OPTIONS)
STRATA_LAYER("int8_conv2d", Int8Conv2d);

}  // namespace strata::nn
