// Int8Dense (nn/int8.hpp): Dense's product as a prepared int8 op (oneDNN's int8 matmul on the CPU).
#include "strata/nn/int8.hpp"
#include "strata/nn/option_table.hpp"

namespace strata::nn {

Int8Dense::Int8Dense(Options options, std::string name)
    : Int8Layer("int8_dense", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

void Int8Dense::build(const Shape& s) {
  expect(s.size() >= 1, "expects inputs of shape [..., features], got " + s.str());
  expect(options_.in_units < 0 || s.back() == options_.in_units,
         "was declared with in_units " + std::to_string(options_.in_units) + " but got input of shape " + s.str());
  options_.in_units = s.back();
  add_int8_weights({options_.in_units, options_.units}, options_.use_bias);
}

Tensor Int8Dense::forward(const Tensor& x) {
  const int64_t in = options_.in_units, out = options_.units;
  expect(x.dim() >= 1 && x.shape().back() == in && x.dtype() == kFloat32,
         "expected float32 input of shape [..., " + std::to_string(in) + "], got " + dtype_name(x.dtype()) + " " +
             x.shape().str());
  Shape out_shape = x.shape();
  out_shape[out_shape.size() - 1] = out;
  if (x.is_meta()) return Tensor::empty(out_shape, kFloat32, x.device());
  return run_int8(x, out_shape, options_.input_scale, options_.input_zero_point, options_.act);
}

STRATA_DEFINE_OPTIONS(Int8DenseOptions, STRATA_INT8_DENSE_OPTIONS)
STRATA_LAYER("int8_dense", Int8Dense);

}  // namespace strata::nn
