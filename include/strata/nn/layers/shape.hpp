// Shape layers: flatten, reshape, transpose, tile, slice, padding, up- and down-sampling, channel
// shuffle, and the spatial transformer with the bilinear sampling it reads with.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/combine.hpp"

// Layers that only change shape: Flatten keeps the batch axis; Reshape takes a shape for the
// axes after the batch (-1 inferred).
namespace strata::nn {

#define STRATA_FLATTEN_OPTIONS(X)
STRATA_OPTIONS(FlattenOptions, STRATA_FLATTEN_OPTIONS);

class Flatten : public Layer {
 public:
  using Options = FlattenOptions;
  STRATA_LAYER_MOVABLE(Flatten)
  explicit Flatten(Options options, std::string name = "");
  explicit Flatten(std::string name = "") : Flatten(Options{}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_RESHAPE_OPTIONS(X) \
  X(std::vector<int64_t>, shape, {}, at_least(-1), "the shape after the batch axis; one -1: inferred")
STRATA_OPTIONS(ReshapeOptions, STRATA_RESHAPE_OPTIONS);

class Reshape : public Layer {
 public:
  using Options = ReshapeOptions;
  STRATA_LAYER_MOVABLE(Reshape)
  explicit Reshape(Options options, std::string name = "");
  explicit Reshape(Shape shape, std::string name = "") : Reshape(Options{.shape = shape.vec()}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// Layers that rearrange, repeat, pad or resize their input, without weights (TensorLayer's
// Transpose, ExpandDims, Tile, ZeroPad1d/2d/3d, UpSampling2d, DownSampling2d). Axes count the
// batch axis, as TensorLayer's do.
namespace strata::nn {

#define STRATA_TRANSPOSE_OPTIONS(X) \
  X(std::vector<int64_t>, perm, {}, any(), "the input axis each output axis takes (counting the batch axis)")
STRATA_OPTIONS(TransposeOptions, STRATA_TRANSPOSE_OPTIONS);

// Permutes every axis: perm has one entry per input axis.
class Transpose : public Layer {
 public:
  using Options = TransposeOptions;
  STRATA_LAYER_MOVABLE(Transpose)
  explicit Transpose(Options options, std::string name = "");
  explicit Transpose(std::vector<int64_t> perm, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_EXPAND_DIMS_OPTIONS(X) \
  X(int64_t, axis, -1, any(), "where the size-1 axis goes, counting the batch axis; -1: a new last axis")
STRATA_OPTIONS(ExpandDimsOptions, STRATA_EXPAND_DIMS_OPTIONS);

// Inserts a size-1 axis at `axis` (-1: a new last axis).
class ExpandDims : public Layer {
 public:
  using Options = ExpandDimsOptions;
  STRATA_LAYER_MOVABLE(ExpandDims)
  explicit ExpandDims(Options options, std::string name = "");
  explicit ExpandDims(int64_t axis, std::string name = "") : ExpandDims(Options{.axis = axis}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_TILE_OPTIONS(X) \
  X(std::vector<int64_t>, multiples, {}, at_least(1), "repeats per axis, one per input axis (counting the batch axis)")
STRATA_OPTIONS(TileOptions, STRATA_TILE_OPTIONS);

// Repeats the input multiples[d] times along each axis (NumPy's / TensorFlow's tile).
class Tile : public Layer {
 public:
  using Options = TileOptions;
  STRATA_LAYER_MOVABLE(Tile)
  explicit Tile(Options options, std::string name = "");
  explicit Tile(std::vector<int64_t> multiples, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

using PadPairs = std::vector<std::pair<int64_t, int64_t>>;

// The options of ZeroPad1d/2d/3d: saved as [[before, after], ...].
#define STRATA_ZERO_PAD_OPTIONS(X)                               \
  X(std::vector<std::vector<int64_t>>, padding, {}, at_least(0), \
    "[before, after] zeros per spatial axis (1, 2 or 3 axes)")
STRATA_OPTIONS(ZeroPadOptions, STRATA_ZERO_PAD_OPTIONS);

// Zeros before and after each spatial axis of [N, spatial..., C]; ZeroPad1d/2d/3d fix the rank.
class ZeroPad : public Layer {
 public:
  using Options = ZeroPadOptions;
  STRATA_LAYER_MOVABLE(ZeroPad)
  // One [before, after] per spatial axis.
  ZeroPad(std::string kind, int rank, Options options, std::string name);
  ZeroPad(std::string kind, int rank, PadPairs padding, std::string name);
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  Options options_;
};

class ZeroPad1d : public ZeroPad {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad1d)
  explicit ZeroPad1d(Options options, std::string name = "")
      : ZeroPad("zeropad1d", 1, std::move(options), std::move(name)) {}
  explicit ZeroPad1d(int64_t padding, std::string name = "")
      : ZeroPad1d(PadPairs{{padding, padding}}, std::move(name)) {}
  explicit ZeroPad1d(PadPairs padding, std::string name = "")
      : ZeroPad("zeropad1d", 1, std::move(padding), std::move(name)) {}
};
class ZeroPad2d : public ZeroPad {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad2d)
  explicit ZeroPad2d(Options options, std::string name = "")
      : ZeroPad("zeropad2d", 2, std::move(options), std::move(name)) {}
  explicit ZeroPad2d(int64_t padding, std::string name = "")
      : ZeroPad2d(PadPairs(2, {padding, padding}), std::move(name)) {}
  explicit ZeroPad2d(PadPairs padding, std::string name = "")
      : ZeroPad("zeropad2d", 2, std::move(padding), std::move(name)) {}
};
class ZeroPad3d : public ZeroPad {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad3d)
  explicit ZeroPad3d(Options options, std::string name = "")
      : ZeroPad("zeropad3d", 3, std::move(options), std::move(name)) {}
  explicit ZeroPad3d(int64_t padding, std::string name = "")
      : ZeroPad3d(PadPairs(3, {padding, padding}), std::move(name)) {}
  explicit ZeroPad3d(PadPairs padding, std::string name = "")
      : ZeroPad("zeropad3d", 3, std::move(padding), std::move(name)) {}
};

// How resizing picks values. Both use half-pixel centres, as TensorFlow 2's tf.image.resize
// (PyTorch: nearest-exact, and bilinear with align_corners=False); no antialiasing.
enum class ResizeMethod { nearest, bilinear };

// x [N, H, W, C] -> [N, out_h, out_w, C]. Differentiable in x: a gather per axis (two, weighted,
// for bilinear).
Tensor resize2d(const Tensor& x, int64_t out_h, int64_t out_w, ResizeMethod method = ResizeMethod::bilinear);

// The options of UpSampling2d and DownSampling2d (the same keys). options() holds two scales.
#define STRATA_SAMPLING2D_OPTIONS(X)                                        \
  X(std::vector<int64_t>, scale, (std::vector<int64_t>{2, 2}), at_least(1), \
    "[scale_h, scale_w], or one value for both")                            \
  X(ResizeMethod, method, ResizeMethod::bilinear, any(),                    \
    "how values are picked (half-pixel centres, as TensorFlow 2's tf.image.resize)")
STRATA_OPTIONS(Sampling2dOptions, STRATA_SAMPLING2D_OPTIONS);

// [N, H, W, C] -> [N, H * scale_h, W * scale_w, C].
class UpSampling2d : public Layer {
 public:
  using Options = Sampling2dOptions;
  STRATA_LAYER_MOVABLE(UpSampling2d)
  explicit UpSampling2d(Options options, std::string name = "");
  explicit UpSampling2d(std::vector<int64_t> scale = {2, 2}, ResizeMethod method = ResizeMethod::bilinear,
                        std::string name = "")
      : UpSampling2d(Options{.scale = std::move(scale), .method = method}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// [N, H, W, C] -> [N, H / scale_h, W / scale_w, C] (rounded down).
class DownSampling2d : public Layer {
 public:
  using Options = Sampling2dOptions;
  STRATA_LAYER_MOVABLE(DownSampling2d)
  explicit DownSampling2d(Options options, std::string name = "");
  explicit DownSampling2d(std::vector<int64_t> scale = {2, 2}, ResizeMethod method = ResizeMethod::bilinear,
                          std::string name = "")
      : DownSampling2d(Options{.scale = std::move(scale), .method = method}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// Slice: a contiguous range of one axis as a layer (tf.slice, ONNX Slice with one axis), for
// static models that route part of a tensor onward, as darknet's [route] groups do.
namespace strata::nn {

#define STRATA_SLICE_OPTIONS(X)                                                                    \
  X(int64_t, axis, -1, any(), "the axis sliced, counting the batch axis; -1: the last (channels)") \
  X(int64_t, begin, 0, at_least(0), "the first index kept")                                        \
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

// PadLayer (TensorLayer's, tf.pad): pads every axis of its input, the batch axis included,
// by {before, after} pairs, with a constant, or mirrored without (reflect) or with (symmetric)
// the edge element, or the edge repeated (replicate).
namespace strata::nn {

enum class PadLayerMode { constant, reflect, symmetric, replicate };

// Symmetric padding of the last pads.size() axes (tf.pad's SYMMETRIC, NumPy's "symmetric"):
// [a b c d] by 2 -> b a [a b c d] d c; needs pad <= size.
Tensor pad_symmetric(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads);

#define STRATA_PAD_LAYER_OPTIONS(X)                                                                 \
  X(std::vector<std::vector<int64_t>>, padding, {}, at_least(0),                                    \
    "{before, after} pairs, one per input axis (the batch axis included); fewer pad the last axes") \
  X(PadLayerMode, mode, PadLayerMode::constant, any(), "how the border is filled")                  \
  X(double, constant_value, 0, any(), "the value padded in (mode constant)")
STRATA_OPTIONS(PadLayerOptions, STRATA_PAD_LAYER_OPTIONS);

class PadLayer : public Layer {
 public:
  STRATA_LAYER_MOVABLE(PadLayer)
  using Options = PadLayerOptions;
  explicit PadLayer(Options options, std::string name = "");
  // One pair per input axis (TensorLayer's `padding`); fewer pads the last axes.
  explicit PadLayer(std::vector<std::pair<int64_t, int64_t>> padding, PadLayerMode mode = PadLayerMode::constant,
                    double constant_value = 0, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// Shuffle (TensorLayer's; ShuffleNet's channel shuffle): the C channels of a channels-last
// input, seen as [groups, C / groups], are transposed to [C / groups, groups], so output channel
// k * groups + g is input channel g * (C / groups) + k.
namespace strata::nn {

// The functional form, for any rank >= 1 with the channels last.
Tensor channel_shuffle(const Tensor& x, int64_t groups);

#define STRATA_SHUFFLE_OPTIONS(X) \
  X(int64_t, groups, 0, at_least(1), "channel groups; the channels (the last axis) must be divisible by it")
STRATA_OPTIONS(ShuffleOptions, STRATA_SHUFFLE_OPTIONS);

class Shuffle : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Shuffle)
  using Options = ShuffleOptions;
  explicit Shuffle(Options options, std::string name = "");
  explicit Shuffle(int64_t groups, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// Bilinear sampling of NHWC images at fractional pixel positions: what deformable convolution
// and spatial transformers read their inputs with.
namespace strata::nn {

// x [N, H, W, C] sampled at rows ys and columns xs (both [N, M], floating; pixel centres at
// integers) -> [N, M, C]. Each sample mixes its four neighbouring pixels; neighbours outside
// the image read zeros (torchvision's deform_conv2d, grid_sample's padding_mode="zeros").
// Differentiable in x and in the positions.
Tensor bilinear_sample(const Tensor& x, const Tensor& ys, const Tensor& xs);

}  // namespace strata::nn

// Spatial transformer network (Jaderberg et al. 2015; TensorLayer's SpatialTransformer2dAffine):
// a learned affine map of each image, read back by bilinear sampling.
namespace strata::nn {

// Samples x [N, H, W, C] through the affine maps theta [N, 2, 3] (or [N, 6]) onto an
// [N, out_h, out_w, C] grid. Coordinates are normalised to [-1, 1] with pixel centres at
// (2k + 1) / size - 1 (PyTorch's affine_grid + grid_sample with align_corners=False; the
// identity theta returns x when the sizes agree); theta maps (x_t, y_t, 1) of the output to
// (x_s, y_s) in the input. Outside the input reads zeros.
Tensor affine_transform2d(const Tensor& x, const Tensor& theta, int64_t out_h, int64_t out_w);

// Called with {theta_input, x} (TensorLayer's order): theta = tanh(flatten(theta_input) · W + b),
// W [features, 6] starting at zeros and b [6] at the identity (1, 0, 0, 0, 1, 0), as
// TensorLayer's (whose tanh makes the starting map a zoom by tanh(1), not the identity).
#define STRATA_SPATIAL_TRANSFORMER2D_AFFINE_OPTIONS(X)                                                     \
  X(std::vector<int64_t>, out_size, (std::vector<int64_t>{40, 40}), at_least(1), "output [height, width]") \
  X(int64_t, in_channels, -1, at_least(-1), "theta_input's features; -1: inferred from the first input")
STRATA_OPTIONS(SpatialTransformer2dAffineOptions, STRATA_SPATIAL_TRANSFORMER2D_AFFINE_OPTIONS);

class SpatialTransformer2dAffine : public Layer {
 public:
  using Options = SpatialTransformer2dAffineOptions;
  STRATA_LAYER_MOVABLE(SpatialTransformer2dAffine)
  explicit SpatialTransformer2dAffine(Options options, std::string name = "");
  explicit SpatialTransformer2dAffine(std::vector<int64_t> out_size = {40, 40}, int64_t in_channels = -1,
                                      std::string name = "");
  const Options& options() const { return options_; }
  Tensor W, b;

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
