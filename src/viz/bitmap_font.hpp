// Text in a small bitmap font (printable ASCII, 7 x 14 pixels a character, rendered from DejaVu
// Sans Mono by scripts/make-bitmap-font.py) drawn into uint8 pixels: the labels of draw_boxes
// and the legend of plot_curves. Not a text renderer: no kerning, no Unicode (other bytes are
// drawn as '?'), clipped at the image's edges.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace strata::viz::detail {

constexpr int64_t kGlyphWidth = 7, kGlyphHeight = 14;

inline int64_t text_width(std::string_view text) { return static_cast<int64_t>(text.size()) * kGlyphWidth; }

// Sets the pixels of `text`, top-left corner at (x, y), in pixels [h, w, c] (row-major, c
// channels) to `color` (c values); what falls outside the image is skipped.
void draw_text(std::vector<uint8_t>& pixels, int64_t h, int64_t w, int64_t c, int64_t x, int64_t y,
               std::string_view text, const uint8_t* color);

// Fills the rectangle [y0, y1] x [x0, x1] (inclusive, clipped) with `color`.
void fill_rect(std::vector<uint8_t>& pixels, int64_t h, int64_t w, int64_t c, int64_t y0, int64_t x0, int64_t y1,
               int64_t x1, const uint8_t* color);

}  // namespace strata::viz::detail
