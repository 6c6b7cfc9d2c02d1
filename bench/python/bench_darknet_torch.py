"""The work of bench/bench_darknet.cpp in PyTorch: YOLOv4 and YOLOv4-tiny from their published cfgs
(tests/vision/fixtures/), built by tests/vision/make_darknet_fixtures.py's reference model (F.conv2d,
F.batch_norm, the activations, routes, F.interpolate, padded F.max_pool2d over NCHW tensors), run
forward at 416x416, batch 1, random weights, with as many threads as Strata's OpenMP. Each line:
`torch <network> <seconds>`, the best of 3 after a warm-up.
    python3 bench_darknet_torch.py"""
import os
import pathlib
import sys
import time

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests" / "vision"))
from make_darknet_fixtures import HERE as FIXTURES, Darknet, read_cfg  # noqa: E402

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())))

for name in ("yolov4", "yolov4-tiny"):
    net = Darknet(read_cfg(FIXTURES / f"{name}.cfg"), 416, 416)
    net.random_weights(np.random.default_rng(1))
    image = torch.rand(1, 3, 416, 416)
    with torch.no_grad():
        net.forward(image)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            net.forward(image)
            best = min(best, time.perf_counter() - start)
    print(f"torch {name} {best:.4f}", flush=True)
