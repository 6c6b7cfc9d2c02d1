#include "strata/viz/apng.hpp"

#include <zlib.h>

#include <array>
#include <cstring>
#include <fstream>
#include <string_view>

#include "strata/core/error.hpp"
#include "strata/data/image_codec.hpp"

namespace strata::viz {
namespace {

constexpr std::array<uint8_t, 8> kSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr int64_t kMaxFrames = 100000;

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}
void put_u16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}
uint32_t get_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// A chunk: length, type, data, and the CRC-32 of type and data.
void put_chunk(std::vector<uint8_t>& out, std::string_view type, const std::vector<uint8_t>& data) {
  put_u32(out, static_cast<uint32_t>(data.size()));
  const size_t crc_from = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data.begin(), data.end());
  put_u32(out, static_cast<uint32_t>(crc32(0, out.data() + crc_from, static_cast<uInt>(out.size() - crc_from))));
}

struct StillPng {
  std::vector<uint8_t> header;       // the chunks before the first IDAT (IHDR first), as written
  std::vector<uint8_t> image_data;   // the IDAT chunks' data, concatenated
};

// Splits encode_png's output; libpng wrote it, so a malformed chunk is a bug worth a clear error.
StillPng split_png(const std::vector<uint8_t>& png) {
  STRATA_CHECK(png.size() >= kSignature.size() && std::memcmp(png.data(), kSignature.data(), kSignature.size()) == 0,
               "encode_apng: encode_png returned no PNG signature");
  StillPng out;
  size_t pos = kSignature.size();
  while (pos + 12 <= png.size()) {
    const size_t length = get_u32(&png[pos]);
    STRATA_CHECK(length <= png.size() - pos - 12, "encode_apng: a chunk of encode_png's output overruns it");
    const std::string_view type(reinterpret_cast<const char*>(&png[pos + 4]), 4);
    const auto data = png.begin() + static_cast<std::ptrdiff_t>(pos + 8);
    if (type == "IDAT") out.image_data.insert(out.image_data.end(), data, data + static_cast<std::ptrdiff_t>(length));
    else if (type == "IEND") break;
    else if (out.image_data.empty()) out.header.insert(out.header.end(), png.begin() + static_cast<std::ptrdiff_t>(pos), data + static_cast<std::ptrdiff_t>(length + 4));
    pos += length + 12;
  }
  STRATA_CHECK(!out.image_data.empty(), "encode_apng: encode_png's output has no image data");
  return out;
}

}  // namespace

std::vector<uint8_t> encode_apng(const std::vector<Tensor>& frames, const ApngOptions& options) {
  STRATA_CHECK(!frames.empty() && static_cast<int64_t>(frames.size()) <= kMaxFrames, "encode_apng: expected 1 to ",
               kMaxFrames, " frames, got ", frames.size());
  STRATA_CHECK(options.delay_ms >= 1 && options.delay_ms <= 65535, "encode_apng: delay_ms must be in [1, 65535], got ",
               options.delay_ms);
  STRATA_CHECK(options.plays >= 0 && options.plays <= 0x7fffffff, "encode_apng: plays must be in [0, 2^31), got ",
               options.plays);
  for (size_t i = 0; i < frames.size(); ++i)
    STRATA_CHECK(frames[i].defined() && frames[i].shape() == frames[0].shape() && frames[i].dtype() == frames[0].dtype(),
                 "encode_apng: frame ", i, " is ", frames[i].defined() ? frames[i].shape().str() : "undefined",
                 ", expected the first frame's shape ", frames[0].shape().str());
  std::vector<uint8_t> out(kSignature.begin(), kSignature.end());
  uint32_t sequence = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const StillPng still = split_png(data::encode_png(frames[i]));  // checks dtype and channels
    if (i == 0) {
      out.insert(out.end(), still.header.begin(), still.header.end());
      std::vector<uint8_t> actl;
      put_u32(actl, static_cast<uint32_t>(frames.size()));
      put_u32(actl, static_cast<uint32_t>(options.plays));
      put_chunk(out, "acTL", actl);
    }
    // fcTL: the whole canvas at offset (0, 0), shown delay_ms / 1000 s, no disposal, no blending.
    std::vector<uint8_t> fctl;
    put_u32(fctl, sequence++);
    put_u32(fctl, static_cast<uint32_t>(frames[i].size(1)));
    put_u32(fctl, static_cast<uint32_t>(frames[i].size(0)));
    put_u32(fctl, 0);
    put_u32(fctl, 0);
    put_u16(fctl, static_cast<uint32_t>(options.delay_ms));
    put_u16(fctl, 1000);
    fctl.push_back(0);  // dispose_op: none
    fctl.push_back(0);  // blend_op: source
    put_chunk(out, "fcTL", fctl);
    if (i == 0) {
      put_chunk(out, "IDAT", still.image_data);
    } else {
      std::vector<uint8_t> fdat;
      put_u32(fdat, sequence++);
      fdat.insert(fdat.end(), still.image_data.begin(), still.image_data.end());
      put_chunk(out, "fdAT", fdat);
    }
  }
  put_chunk(out, "IEND", {});
  return out;
}

void write_apng(const std::string& path, const std::vector<Tensor>& frames, const ApngOptions& options) {
  const std::vector<uint8_t> bytes = encode_apng(frames, options);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  STRATA_CHECK(out.good(), "write_apng: cannot write ", path);
}

}  // namespace strata::viz
