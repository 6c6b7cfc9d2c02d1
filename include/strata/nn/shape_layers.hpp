// Layers that rearrange, repeat, pad or resize their input, without weights (TensorLayer's
// Transpose, ExpandDims, Tile, ZeroPad1d/2d/3d, UpSampling2d, DownSampling2d). Axes count the
// batch axis, as TensorLayer's do.
#pragma once
#include <utility>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

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
#define STRATA_SAMPLING2D_OPTIONS(X)                                                                   \
  X(std::vector<int64_t>, scale, (std::vector<int64_t>{2, 2}), at_least(1),                           \
    "[scale_h, scale_w], or one value for both")                                                      \
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
