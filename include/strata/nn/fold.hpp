// Sliding-window patches of NHWC images and their adjoint (PyTorch's Unfold and Fold,
// tf.image.extract_patches). Patches keep the spatial layout: [N, OH, OW, kh * kw * C], each
// patch in (i, j, c) order — the order of a Conv2d weight [kh, kw, C, O] flattened, so
// unfold2d(x) · W.reshape({-1, O}) is conv2d(x, W) with the same options.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

// x [N, H, W, C] -> [N, OH, OW, kh * kw * C]; options as for conv2d (stride, padding,
// dilation; groups must be 1). Padded positions read zeros.
Tensor unfold2d(const Tensor& x, const SpatialSizes& kernel, const ConvOptions& options = {});
// The adjoint of unfold2d: patches [N, OH, OW, kh * kw * C] summed back into an image
// [N, H, W, C] of output_size {H, W} (overlapping elements add; padded ones are dropped).
Tensor fold2d(const Tensor& patches, const SpatialSizes& output_size, const SpatialSizes& kernel,
              const ConvOptions& options = {});

#define STRATA_UNFOLD_OPTIONS(X)                                                \
  X(SpatialSizes, kernel, {}, at_least(1), "window {kh, kw} (one value: both)") \
  X(ConvOptions, options, {}, any(), "stride, padding and dilation as for conv2d; groups 1")
STRATA_OPTIONS(UnfoldOptions, STRATA_UNFOLD_OPTIONS);

class Unfold : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Unfold)
  using Options = UnfoldOptions;
  explicit Unfold(Options options, std::string name = "");
  explicit Unfold(SpatialSizes kernel, ConvOptions options = {}, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_FOLD_OPTIONS(X)                                                  \
  X(SpatialSizes, output_size, {}, at_least(1), "the image's {H, W}")           \
  X(SpatialSizes, kernel, {}, at_least(1), "window {kh, kw} (one value: both)") \
  X(ConvOptions, options, {}, any(), "stride, padding and dilation as for conv2d; groups 1")
STRATA_OPTIONS(FoldOptions, STRATA_FOLD_OPTIONS);

class Fold : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Fold)
  using Options = FoldOptions;
  explicit Fold(Options options, std::string name = "");
  Fold(SpatialSizes output_size, SpatialSizes kernel, ConvOptions options = {}, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
