// Animated PNG (APNG, https://wiki.mozilla.org/APNG_Specification): frames of one size written as
// one .png that browsers and PIL play as an animation, and that viewers without APNG show as its
// first frame. Each frame is encoded by encode_png (image_codec.hpp); its image data becomes the
// default image (frame 0, IDAT) or an fdAT chunk, each announced by an fcTL chunk, all numbered
// in one sequence, with acTL giving the frame count before the first image data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::viz {

struct ApngOptions {
  int64_t delay_ms = 100;  // each frame's display time, in [1, 65535] ms
  int64_t plays = 0;       // times the animation plays; 0 loops forever
};

// Requires 1 to 100000 uint8 images [H, W, C] (C = 1 to 4), all of the same shape; throws
// strata::Error naming the first frame that differs, or the option out of range.
std::vector<uint8_t> encode_apng(const std::vector<Tensor>& frames, const ApngOptions& options = {});
void write_apng(const std::string& path, const std::vector<Tensor>& frames, const ApngOptions& options = {});

}  // namespace strata::viz
