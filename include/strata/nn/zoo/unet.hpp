// U-Net (Ronneberger, Fischer and Brox 2015) for semantic segmentation, as a static Model: a
// contracting path of `depth` levels (two 3x3 convolutions, each followed by batch norm and
// ReLU, then a 2x2 max pool), a bottom level of two more, and an expanding path that doubles the
// resolution (a 2x2 stride-2 transposed convolution, the paper's up-convolution, or bilinear
// upsampling and a 3x3 convolution), concatenates the contracting level's features (the skip)
// and runs two 3x3 convolutions again; a 1x1 convolution gives each pixel's class scores (logits,
// no softmax). Filters start at `width` and double per level. Unlike the paper the convolutions
// pad (SAME), so the output has the input's size and needs no cropping. Input [-1, H, W, C]
// (NHWC) with H and W multiples of 2^depth; output [-1, H, W, classes].
//
// Layer names: level l = 1..depth down: down{l}_conv1, down{l}_bn1, down{l}_conv2, down{l}_bn2,
// down{l}_pool; bottom_conv1, bottom_bn1, bottom_conv2, bottom_bn2; up: up{l}_upconv (or
// up{l}_resize and up{l}_upconv), up{l}_concat, up{l}_conv1, up{l}_bn1, up{l}_conv2, up{l}_bn2;
// logits. The 3x3 convolutions have no bias (the batch norm's beta is one).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::nn::zoo {

struct UNetOptions {
  int64_t classes = 2;     // output channels, >= 2
  int64_t depth = 4;       // down-sampling levels, 1 to 8 (the paper's 4)
  int64_t width = 64;      // filters of the first level, 1 to 1024 (the paper's 64)
  bool transposed = true;  // up-sample by transposed convolution; false: bilinear resize + 3x3 conv
};

// end_with: the last layer kept, one of the names above ("bottom_bn2" for the contracting path's
// features). Throws strata::Error naming "unet" when it is not one of them, an option is out of
// range, the input is not [-1, H, W, C], or H or W is not a multiple of 2^depth.
std::shared_ptr<Model> unet(const std::string& end_with = "logits", const Shape& input = {-1, 256, 256, 1},
                            const UNetOptions& options = {});

}  // namespace strata::nn::zoo
