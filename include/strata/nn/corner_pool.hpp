// CornerNet's corner pooling (TensorLayerX's CornerPool2d) on channels-last inputs.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// [N, H, W, C], the maximum over the column towards one edge plus the maximum over the row
// towards another (both including the position). TopLeft looks down and right; BottomRight up
// and left; TopRight down and left; BottomLeft up and right.
enum class Corner { top_left, top_right, bottom_left, bottom_right };
Tensor corner_pool2d(const Tensor& x, Corner corner);

#define STRATA_CORNER_POOL2D_OPTIONS(X) \
  X(Corner, mode, Corner::top_left, any(), "the corner pooled towards")
STRATA_OPTIONS(CornerPool2dOptions, STRATA_CORNER_POOL2D_OPTIONS);

class CornerPool2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(CornerPool2d)
  using Options = CornerPool2dOptions;
  explicit CornerPool2d(Options options, std::string name = "");
  explicit CornerPool2d(Corner corner = Corner::top_left, std::string name = "");
  // TensorLayerX's spelling: "TopLeft", "TopRight", "BottomLeft", "BottomRight".
  explicit CornerPool2d(const std::string& mode, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
