#!/usr/bin/python3
"""Writes tests/data/image_quality_fixture.hpp: reference values for test_image_quality.cpp from
Pillow (bicubic resize) and scikit-image (PSNR, SSIM, rgb2ycbcr). Pinned to Debian bookworm's
python3-pil 9.4.0 and python3-skimage 0.19.3 (run with /usr/bin/python3; it checks the versions).
The test images are formulas, written again in the C++ test:
  a(y, x, c) = (37 x + 91 y + 53 c + 7 x y) mod 256          (16 x 20 x 3, uint8)
  b(y, x, c) = clip(a + ((5 x + 3 y + 11 c) mod 41) - 20)    (the same, perturbed)
"""
import sys

import numpy as np
import PIL
import skimage
from PIL import Image
from skimage.color import rgb2ycbcr
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

assert PIL.__version__ == "9.4.0" and skimage.__version__ == "0.19.3", (PIL.__version__, skimage.__version__)

H, W = 16, 20
y, x, c = np.meshgrid(np.arange(H), np.arange(W), np.arange(3), indexing="ij")
a = ((37 * x + 91 * y + 53 * c + 7 * x * y) % 256).astype(np.uint8)
b = np.clip(a.astype(int) + (5 * x + 3 * y + 11 * c) % 41 - 20, 0, 255).astype(np.uint8)


def resize_float(img, h, w):
    """Pillow's float ("F") bicubic per channel: no rounding between the passes."""
    chans = [np.asarray(Image.fromarray(img[..., k].astype(np.float32), "F").resize((w, h), Image.BICUBIC))
             for k in range(img.shape[2])]
    return np.stack(chans, -1)


def cpp(name, values):
    flat = ", ".join(repr(float(v)) for v in np.asarray(values, dtype=np.float64).ravel())
    return f"inline const std::vector<double> {name} = {{{flat}}};"


out = ["// Written by make_image_quality_fixture.py (Pillow 9.4.0, scikit-image 0.19.3); do not edit.",
       "#pragma once", "#include <vector>", "", "namespace strata::data::fixture {", ""]
# Bicubic: shrink 4x (antialiased), shrink by a non-integer factor, enlarge 4x and to an odd size.
small = resize_float(a, 4, 5)
out.append(cpp("kShrink4", small))
out.append(cpp("kShrink7x6", resize_float(a, 7, 6)))
out.append(cpp("kEnlarge4", resize_float(small, 16, 20)))
out.append(cpp("kEnlarge11x9", resize_float(small, 11, 9)))
out.append(cpp("kShrink4Uint8", np.asarray(Image.fromarray(a, "RGB").resize((5, 4), Image.BICUBIC))))
out.append(cpp("kPsnr", [peak_signal_noise_ratio(a, b, data_range=255)]))
out.append(cpp("kSsimRgb", [structural_similarity(a, b, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
                                                  data_range=255, channel_axis=-1)]))
ya, yb = rgb2ycbcr(a)[..., 0], rgb2ycbcr(b)[..., 0]
out.append(cpp("kLumaA", ya))
out.append(cpp("kSsimLuma", [structural_similarity(ya, yb, gaussian_weights=True, sigma=1.5,
                                                   use_sample_covariance=False, data_range=255)]))
out += ["", "}  // namespace strata::data::fixture", ""]
sys.stdout.write("\n".join(out))
