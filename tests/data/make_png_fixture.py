#!/usr/bin/env python3
"""Writes the PNG bytes used by test_image_codec.cpp with Python's own zlib (an encoder
independent of libpng): a 3x2 RGB image and a 2x1 gray+alpha image. Prints C++ arrays."""
import struct
import zlib


def png(width, height, color_type, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = b"".join(b"\x00" + bytes(r) for r in rows)  # filter type 0 on every row
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def cpp(name, data):
    values = ", ".join(str(b) for b in data)
    return f"const std::vector<uint8_t> {name} = {{{values}}};"


# RGB: pixel (y, x) = (10 + 100 y + 20 x, 50 x, 200 - 30 y)
rgb = [[v for x in range(3) for v in (10 + 100 * y + 20 * x, 50 * x, 200 - 30 * y)] for y in range(2)]
print(cpp("kRgbPng", png(3, 2, 2, rgb)))
# Gray + alpha: (gray, alpha) = (7, 255), (250, 128)
print(cpp("kGrayAlphaPng", png(2, 1, 4, [[7, 255, 250, 128]])))
