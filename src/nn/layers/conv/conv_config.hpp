// Shared by the convolution layers' .cpp files. ConvLayer keeps its options as ConvLayerOptions;
// each class on it has a struct of its own with the same fields (STRATA_CONV_FIELDS) and its own
// defaults, converted field by field.
#pragma once
#include <string>
#include <utility>

#include "strata/nn/layers/conv.hpp"

namespace strata::nn::detail {

// One options struct of STRATA_CONV_FIELDS as another.
template <class To, class From>
To same_conv_fields(const From& from) {
  To to;
#define STRATA_COPY_CONV_FIELD(type, name, default_value, rule, doc) to.name = from.name;
  STRATA_CONV_FIELDS(STRATA_COPY_CONV_FIELD, {}, {}, {}, {})
#undef STRATA_COPY_CONV_FIELD
  return to;
}

}  // namespace strata::nn::detail

// Defines Class(Options, name) on ConvLayer and Class::options() for a class of ConvLayer
// (inside namespace strata::nn).
#define STRATA_CONV_LAYER_CLASS(Class, kind, rank, transposed, op)                                                     \
  Class::Class(Options options, std::string name)                                                                      \
      : ConvLayer(kind, rank, transposed, op, detail::same_conv_fields<ConvLayerOptions>(options), std::move(name)) {} \
  Class::Options Class::options() const { return detail::same_conv_fields<Options>(ConvLayer::options()); }
