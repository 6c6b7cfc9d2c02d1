// Slice: a contiguous range of one axis as a layer (tf.slice, ONNX Slice with one axis), for
// static models that route part of a tensor onward, as darknet's [route] groups do.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

#define STRATA_SLICE_OPTIONS(X)                                                                         \
  X(int64_t, axis, -1, any(), "the axis sliced, counting the batch axis; -1: the last (channels)")      \
  X(int64_t, begin, 0, at_least(0), "the first index kept")                                            \
  X(int64_t, end, 1, at_least(1), "one past the last index kept (at most the axis' size)")
STRATA_OPTIONS(SliceOptions, STRATA_SLICE_OPTIONS);

// x[..., begin:end, ...] along `axis`; begin < end <= the axis' size, else an error naming the
// layer. The batch axis cannot be sliced.
class Slice : public Layer {
 public:
  using Options = SliceOptions;
  STRATA_LAYER_MOVABLE(Slice)
  explicit Slice(Options options, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
