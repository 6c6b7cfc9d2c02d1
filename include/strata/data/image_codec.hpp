// PNG and JPEG images to and from HWC uint8 tensors (libpng and libjpeg-turbo underneath).
// `channels` picks the result's channels: 0 keeps the file's (1 gray, 2 gray + alpha, 3 RGB,
// 4 RGBA), 1/3/4 convert (gray = ITU-R 601 luma, like PIL's "L"; a missing alpha is 255).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

// Decodes PNG or JPEG bytes (recognised by their signature) into uint8 [H, W, channels].
// Throws strata::Error naming `name` (a path, or "<memory>") for bytes that are neither, or
// that are corrupt or truncated.
Tensor decode_image(std::span<const uint8_t> bytes, int channels = 0, const std::string& name = "<memory>");
// Reads and decodes a file; errors name the file.
Tensor read_image(const std::string& path, int channels = 0);

// uint8 HWC images with 1 to 4 channels. JPEG takes 1 or 3 channels; quality in [1, 100].
std::vector<uint8_t> encode_png(const Tensor& image);
std::vector<uint8_t> encode_jpeg(const Tensor& image, int quality = 95);
// Encodes by the file's extension (.png, .jpg or .jpeg) and writes it.
void write_image(const std::string& path, const Tensor& image, int jpeg_quality = 95);

}  // namespace strata::data
