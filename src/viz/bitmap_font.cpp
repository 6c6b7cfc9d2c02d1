#include "bitmap_font.hpp"

#include <algorithm>
#include <cstring>

namespace strata::viz::detail {

namespace {

// Rows of printable ASCII 32..126; bit 6 of a row is its leftmost pixel.
constexpr uint8_t kGlyphs[95][kGlyphHeight] = {
#include "bitmap_font_glyphs.inc"
};

const uint8_t* glyph(char ch) {
  const auto code = static_cast<unsigned char>(ch);
  return kGlyphs[(code >= 32 && code <= 126 ? code : '?') - 32];
}

}  // namespace

void draw_text(std::vector<uint8_t>& pixels, int64_t h, int64_t w, int64_t c, int64_t x, int64_t y,
               std::string_view text, const uint8_t* color) {
  for (char ch : text) {
    if (x >= w) break;  // the rest is off the image
    const uint8_t* rows = glyph(ch);
    for (int64_t gy = 0; gy < kGlyphHeight; ++gy)
      for (int64_t gx = 0; gx < kGlyphWidth; ++gx) {
        const int64_t py = y + gy, px = x + gx;
        if (py < 0 || py >= h || px < 0 || px >= w || !(rows[gy] >> (kGlyphWidth - 1 - gx) & 1)) continue;
        std::memcpy(pixels.data() + (py * w + px) * c, color, static_cast<size_t>(c));
      }
    x += kGlyphWidth;
  }
}

void fill_rect(std::vector<uint8_t>& pixels, int64_t h, int64_t w, int64_t c, int64_t y0, int64_t x0, int64_t y1,
               int64_t x1, const uint8_t* color) {
  for (int64_t y = std::max<int64_t>(y0, 0); y <= std::min(y1, h - 1); ++y)
    for (int64_t x = std::max<int64_t>(x0, 0); x <= std::min(x1, w - 1); ++x)
      std::memcpy(pixels.data() + (y * w + x) * c, color, static_cast<size_t>(c));
}

}  // namespace strata::viz::detail
