// Colour: RGB <-> HSV, hue and saturation adjustments and channel shifts, on one HWC image or an
// NHWC batch (uint8, float32 or float64; last axis 3 channels, R G B, for the HSV-based ones).
// Results keep the input's dtype (uint8 rounded and clamped); random ones draw once per image.
#pragma once
#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::vision {

// HSV with every component in [0, 1]: hue as a fraction of a turn (0 red, 1/3 green, 2/3 blue),
// saturation (max - min) / max, value max. uint8 images are read as value / 255 and give float32;
// float images are taken as they are (values in [0, 1] give V in [0, 1]).
Tensor rgb_to_hsv(const Tensor& image);
// The inverse, float in, same float dtype out (hue taken modulo 1).
Tensor hsv_to_rgb(const Tensor& hsv);

// Hue rotated by `delta` turns (1.0 is a full turn: the image unchanged), like tf.image.adjust_hue.
Tensor adjust_hue(const Tensor& image, double delta);
// Saturation multiplied by `factor` and clamped to [0, 1] (0 gives grey), like
// tf.image.adjust_saturation.
Tensor adjust_saturation(const Tensor& image, double factor);
// delta drawn uniformly from [-max_delta, max_delta] per image.
Tensor random_hue(const Tensor& image, double max_delta, Generator& gen = default_generator());
// factor drawn uniformly from [lower, upper] per image.
Tensor random_saturation(const Tensor& image, double lower, double upper, Generator& gen = default_generator());

// `intensity` added to every channel, each result clamped to that image's own [min, max]
// (TensorLayer's and Keras' channel_shift). Any number of channels.
Tensor channel_shift(const Tensor& image, double intensity);
// intensity drawn uniformly from [-intensity_range, intensity_range] per image.
Tensor random_channel_shift(const Tensor& image, double intensity_range, Generator& gen = default_generator());

}  // namespace strata::vision
