#!/usr/bin/env python3
"""Writes a tiny segmentation folder for strata_segmentation_unet's --images / --masks smoke test:
DIR/images/case<k>.png (gray 32 x 32) and DIR/masks/case<k>.png (gray, class ids 0..2: a bright
square is 1, a dark disc is 2). PNGs written with zlib alone, so it needs no imaging package.
  make_segmentation_folder.py DIR
"""
import os
import struct
import sys
import zlib


def write_gray_png(path, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 per row
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit gray
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    root = sys.argv[1]
    for sub in ("images", "masks"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    size = 32
    for k in range(6):
        image = [[60] * size for _ in range(size)]
        mask = [[0] * size for _ in range(size)]
        sx, sy, cx, cy = 2 + 3 * k, 4 + k, 22 - k, 20 + k // 2
        for y in range(size):
            for x in range(size):
                if sx <= x < sx + 8 and sy <= y < sy + 8:
                    image[y][x], mask[y][x] = 200, 1
                elif (x - cx) ** 2 + (y - cy) ** 2 <= 16:
                    image[y][x], mask[y][x] = 20, 2
        name = "case%d.png" % k
        write_gray_png(os.path.join(root, "images", name), image)
        write_gray_png(os.path.join(root, "masks", name), mask)


if __name__ == "__main__":
    main()
