// Layers that rearrange, repeat, pad or resize their input, without weights (TensorLayer's
// Transpose, ExpandDims, Tile, ZeroPad1d/2d/3d, UpSampling2d, DownSampling2d). Axes count the
// batch axis, as TensorLayer's do.
#pragma once
#include <utility>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn {

// Permutes every axis: perm has one entry per input axis.
class Transpose : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Transpose)
  void get_config(nlohmann::json& config) const override;
  explicit Transpose(std::vector<int64_t> perm, std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<int64_t> perm_;
};

// Inserts a size-1 axis at `axis` (-1: a new last axis).
class ExpandDims : public Layer {
 public:
  STRATA_LAYER_MOVABLE(ExpandDims)
  void get_config(nlohmann::json& config) const override;
  explicit ExpandDims(int64_t axis, std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int64_t axis_;
};

// Repeats the input multiples[d] times along each axis (NumPy's / TensorFlow's tile).
class Tile : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Tile)
  void get_config(nlohmann::json& config) const override;
  explicit Tile(std::vector<int64_t> multiples, std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<int64_t> multiples_;
};

using PadPairs = std::vector<std::pair<int64_t, int64_t>>;

// Zeros before and after each spatial axis of [N, spatial..., C]; ZeroPad1d/2d/3d fix the rank.
class ZeroPad : public Layer {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad)
  void get_config(nlohmann::json& config) const override;
  // One {before, after} per spatial axis.
  ZeroPad(std::string kind, int rank, PadPairs padding, std::string name);

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  PadPairs padding_;
};

class ZeroPad1d : public ZeroPad {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad1d)
  explicit ZeroPad1d(int64_t padding, std::string name = "")
      : ZeroPad1d(PadPairs{{padding, padding}}, std::move(name)) {}
  explicit ZeroPad1d(PadPairs padding, std::string name = "")
      : ZeroPad("zeropad1d", 1, std::move(padding), std::move(name)) {}
};
class ZeroPad2d : public ZeroPad {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad2d)
  explicit ZeroPad2d(int64_t padding, std::string name = "")
      : ZeroPad2d(PadPairs(2, {padding, padding}), std::move(name)) {}
  explicit ZeroPad2d(PadPairs padding, std::string name = "")
      : ZeroPad("zeropad2d", 2, std::move(padding), std::move(name)) {}
};
class ZeroPad3d : public ZeroPad {
 public:
  STRATA_LAYER_MOVABLE(ZeroPad3d)
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

// [N, H, W, C] -> [N, H * scale_h, W * scale_w, C].
class UpSampling2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(UpSampling2d)
  void get_config(nlohmann::json& config) const override;
  explicit UpSampling2d(std::vector<int64_t> scale = {2, 2}, ResizeMethod method = ResizeMethod::bilinear,
                        std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<int64_t> scale_;
  ResizeMethod method_;
};

// [N, H, W, C] -> [N, H / scale_h, W / scale_w, C] (rounded down).
class DownSampling2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(DownSampling2d)
  void get_config(nlohmann::json& config) const override;
  explicit DownSampling2d(std::vector<int64_t> scale = {2, 2}, ResizeMethod method = ResizeMethod::bilinear,
                          std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<int64_t> scale_;
  ResizeMethod method_;
};

}  // namespace strata::nn
