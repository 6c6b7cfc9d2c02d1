#!/usr/bin/python3
"""usage: make_vgg19_keras.py PATH: writes a Keras 2 save_weights file laid out as
keras.applications.VGG19(include_top=False)'s (input_1, block<b>_conv<c> with kernel [3, 3, in,
out] and bias, block<b>_pool), seeded random values, for strata_srgan's --vgg19 test (nothing
downloaded). NumPy and h5py only (Debian's python3-numpy, python3-h5py)."""
import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nn", "fixtures"))
from make_keras_recurrent import write_keras  # noqa: E402

rng = np.random.default_rng(19)
layers, channels = [("input_1", [])], 3
for block, (convs, width) in enumerate([(2, 64), (2, 128), (4, 256), (4, 512), (4, 512)], start=1):
    for c in range(1, convs + 1):
        name = f"block{block}_conv{c}"
        scale = np.sqrt(2.0 / (9 * channels))  # He: activations keep their size through the 16 convs
        layers.append((name, [(f"{name}/kernel:0", rng.standard_normal((3, 3, channels, width)) * scale),
                              (f"{name}/bias:0", rng.uniform(-0.01, 0.01, width))]))
        channels = width
    layers.append((f"block{block}_pool", []))
write_keras(sys.argv[1], layers)
