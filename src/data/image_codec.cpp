// PNG through libpng's simplified API, JPEG through libjpeg(-turbo)'s, decoded in the file's own
// channels and then converted, so that every format shares one conversion.
#include "strata/data/image_codec.hpp"

#include <jpeglib.h>
#include <jerror.h>  // after jpeglib.h, which it needs
#include <png.h>

#include <algorithm>
#include <array>
#include <csetjmp>
#include <cstring>
#include <fstream>

#include "file_bytes.hpp"
#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::data {

namespace {

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  throw Error(::strata::detail::concat(parts...));
}

bool is_png(std::span<const uint8_t> b) { return b.size() >= 8 && png_sig_cmp(b.data(), 0, 8) == 0; }
bool is_jpeg(std::span<const uint8_t> b) { return b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF; }

void check_channels(int channels, const std::string& name) {
  STRATA_CHECK(channels >= 0 && channels <= 4, "decode_image(", name, "): channels must be 0 (as stored) or 1 to 4, got ",
               channels);
}

// uint8 [H, W, from] -> [H, W, to]. Colour to gray uses the ITU-R 601 weights.
Tensor convert_channels(const Tensor& in, int to) {
  const int from = static_cast<int>(in.size(2));
  if (to == 0 || to == from) return in;
  const int64_t pixels = in.size(0) * in.size(1);
  Tensor out = Tensor::empty({in.size(0), in.size(1), to}, kUInt8);
  const uint8_t* s = in.data<uint8_t>();
  uint8_t* d = out.data<uint8_t>();
  const bool from_color = from >= 3, from_alpha = from == 2 || from == 4;
  const bool to_color = to >= 3, to_alpha = to == 2 || to == 4;
  for (int64_t p = 0; p < pixels; ++p, s += from, d += to) {
    uint8_t r = s[0], g = s[0], b = s[0];
    if (from_color) g = s[1], b = s[2];
    const uint8_t alpha = from_alpha ? s[from - 1] : 255;
    if (to_color) {
      d[0] = r, d[1] = g, d[2] = b;
    } else {
      d[0] = from_color ? static_cast<uint8_t>((299 * r + 587 * g + 114 * b + 500) / 1000) : r;
    }
    if (to_alpha) d[to - 1] = alpha;
  }
  return out;
}

// The decoded image's shape, from the header's sizes: refused before decoding when its pixels
// pass limits().max_image_pixels or its bytes limits().max_tensor_bytes.
Shape checked_image_shape(uint64_t height, uint64_t width, uint64_t channels, const std::string& name) {
  const std::string what = "decode_image(" + name + ")";
  check_limit(what, "pixels (" + std::to_string(width) + " x " + std::to_string(height) + ")", width * height,
              "max_image_pixels", limits().max_image_pixels);
  return checked_size(std::array<uint64_t, 3>{height, width, channels}, 1, what).shape;
}

Tensor decode_png(std::span<const uint8_t> bytes, const std::string& name) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  STRATA_CHECK(png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) != 0, "decode_image(", name,
               "): corrupt PNG: ", image.message);
  // Palettes expand to RGB(A); 16-bit samples become 8-bit sRGB.
  image.format &= ~(PNG_FORMAT_FLAG_COLORMAP | PNG_FORMAT_FLAG_LINEAR);
  Tensor out;
  try {
    out = Tensor::empty(checked_image_shape(image.height, image.width, PNG_IMAGE_SAMPLE_CHANNELS(image.format), name),
                        kUInt8);
  } catch (...) {
    png_image_free(&image);
    throw;
  }
  const int ok = png_image_finish_read(&image, nullptr, out.data<uint8_t>(), 0, nullptr);
  const std::string message = image.message;
  png_image_free(&image);
  STRATA_CHECK(ok != 0, "decode_image(", name, "): corrupt PNG: ", message);
  return out;
}

// libjpeg reports errors through a callback that must not return: it jumps back to decode_jpeg
// or encode_jpeg with the message kept, and they throw from there.
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr info) {
  auto* err = reinterpret_cast<JpegError*>(info->err);
  (*info->err->format_message)(info, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings about damaged but complete data (e.g. extraneous bytes between markers) still
// decode; data that ends early (a cut file) is an error, where libjpeg would fill the rest with
// gray and report success. Levels >= 0 are trace messages.
void jpeg_warning(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) jpeg_fail(info);
}

Tensor decode_jpeg(std::span<const uint8_t> bytes, const std::string& name) {
  jpeg_decompress_struct info;
  JpegError err;
  info.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  err.mgr.emit_message = jpeg_warning;
  Tensor out;  // before setjmp: no destructor is skipped by the jump
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&info);
    fail("decode_image(", name, "): corrupt JPEG: ", err.message);
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  const bool gray = info.jpeg_color_space == JCS_GRAYSCALE;
  info.out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
  try {  // before jpeg_start_decompress, which allocates for the whole image in progressive files
    out = Tensor::empty(checked_image_shape(info.image_height, info.image_width, gray ? 1 : 3, name), kUInt8);
  } catch (...) {
    jpeg_destroy_decompress(&info);
    throw;
  }
  jpeg_start_decompress(&info);
  const int64_t w = info.output_width, c = info.output_components;
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = out.data<uint8_t>() + static_cast<int64_t>(info.output_scanline) * w * c;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return out;
}

void check_encodable(const Tensor& image, const char* op) {
  STRATA_CHECK(image.defined() && image.dim() == 3 && image.dtype() == kUInt8, op,
               ": expected a uint8 HWC image, got ",
               image.defined() ? image.shape().str() + " " + dtype_name(image.dtype()) : std::string("undefined"));
  STRATA_CHECK(image.size(2) >= 1 && image.size(2) <= 4, op, ": expected 1 to 4 channels, got ", image.size(2));
  STRATA_CHECK(image.size(0) >= 1 && image.size(1) >= 1, op, ": cannot encode an empty image of shape ",
               image.shape().str());
}

}  // namespace

Tensor decode_image(std::span<const uint8_t> bytes, int channels, const std::string& name) {
  check_channels(channels, name);
  Tensor decoded;
  if (is_png(bytes)) decoded = decode_png(bytes, name);
  else if (is_jpeg(bytes)) decoded = decode_jpeg(bytes, name);
  else fail("decode_image(", name, "): not a PNG or JPEG image (", bytes.size(), " bytes, unknown signature)");
  return convert_channels(decoded, channels);
}

Tensor read_image(const std::string& path, int channels) {
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, "read_image");
  return decode_image(bytes, channels, path);
}

std::vector<uint8_t> encode_png(const Tensor& image) {
  check_encodable(image, "encode_png");
  const Tensor in = image.contiguous();
  png_image info;
  std::memset(&info, 0, sizeof info);
  info.version = PNG_IMAGE_VERSION;
  info.width = static_cast<png_uint_32>(in.size(1));
  info.height = static_cast<png_uint_32>(in.size(0));
  static constexpr png_uint_32 kFormats[] = {PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
  info.format = kFormats[in.size(2) - 1];
  png_alloc_size_t size = 0;
  STRATA_CHECK(png_image_write_to_memory(&info, nullptr, &size, 0, in.data<uint8_t>(), 0, nullptr) != 0,
               "encode_png: ", info.message);
  std::vector<uint8_t> out(size);
  STRATA_CHECK(png_image_write_to_memory(&info, out.data(), &size, 0, in.data<uint8_t>(), 0, nullptr) != 0,
               "encode_png: ", info.message);
  out.resize(size);
  return out;
}

std::vector<uint8_t> encode_jpeg(const Tensor& image, int quality) {
  check_encodable(image, "encode_jpeg");
  STRATA_CHECK(image.size(2) == 1 || image.size(2) == 3, "encode_jpeg: expected 1 or 3 channels, got ", image.size(2));
  STRATA_CHECK(quality >= 1 && quality <= 100, "encode_jpeg: quality must be in [1, 100], got ", quality);
  const Tensor in = image.contiguous();
  jpeg_compress_struct info;
  JpegError err;
  info.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&info);
    std::free(buffer);
    fail("encode_jpeg: ", err.message);
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(in.size(1));
  info.image_height = static_cast<JDIMENSION>(in.size(0));
  info.input_components = static_cast<int>(in.size(2));
  info.in_color_space = in.size(2) == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  const int64_t stride = in.size(1) * in.size(2);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = in.data<uint8_t>() + static_cast<int64_t>(info.next_scanline) * stride;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::vector<uint8_t> out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

void write_image(const std::string& path, const Tensor& image, int jpeg_quality) {
  std::string ext = path.substr(std::min(path.size(), path.rfind('.') == std::string::npos ? path.size() : path.rfind('.')));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  std::vector<uint8_t> bytes;
  if (ext == ".png") bytes = encode_png(image);
  else if (ext == ".jpg" || ext == ".jpeg") bytes = encode_jpeg(image, jpeg_quality);
  else fail("write_image(", path, "): expected a .png, .jpg or .jpeg file name, got extension '", ext, "'");
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  STRATA_CHECK(out.good(), "write_image: cannot write ", path);
}

}  // namespace strata::data
