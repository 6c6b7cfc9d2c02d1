"""Reads TensorBoard event files with TensorBoard's own EventAccumulator and compares every value
with what the C++ test expected (a JSON file, argv[1]):

{"runs": [{"dir": LOG_DIR,
           "scalars": {TAG: [[step, value] or [step, value, wall_time], ...]},
           "histograms": {TAG: [{"step": S, "values": [...]}]},
           "images": {TAG: [{"step": S, "height": H, "width": W, "channels": C, "pixels": [...]}]},
           "texts": {TAG: [[step, text] or [step, text, wall_time], ...]}}]}

The histogram's statistics and bucket counts are recomputed here from the raw values, and the
images decoded with Pillow. Prints "ok" and exits 0, or prints each mismatch and exits 1.
"""
import io
import json
import math
import sys

import numpy as np
from PIL import Image
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.util import tensor_util

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)


def keep_everything():
    return {ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0, ea.TENSORS: 0,
            ea.COMPRESSED_HISTOGRAMS: 0, ea.AUDIO: 0}


def check_histogram(where, got, values):
    v = np.asarray(values, dtype=np.float64)
    h = got.histogram_value
    check(h.min == v.min() and h.max == v.max(), f"{where}: min/max {h.min}/{h.max}, expected {v.min()}/{v.max()}")
    check(h.num == v.size, f"{where}: num {h.num}, expected {v.size}")
    check(math.isclose(h.sum, v.sum(), rel_tol=1e-9, abs_tol=1e-9), f"{where}: sum {h.sum}, expected {v.sum()}")
    check(math.isclose(h.sum_squares, (v * v).sum(), rel_tol=1e-9), f"{where}: sum_squares {h.sum_squares}")
    limits = np.asarray(h.bucket_limit)
    check(limits[-1] == v.max(), f"{where}: last bucket limit {limits[-1]} is not the maximum {v.max()}")
    if len(limits) > 1:
        widths = np.diff(np.concatenate([[v.min()], limits]))
        check(np.allclose(widths, widths[0], rtol=1e-9), f"{where}: buckets are not of equal width")
    # TensorFlow's rule: a value v goes in the first bucket whose limit is above v; the maximum in the last.
    expected = np.zeros(len(limits))
    for x in v:
        expected[min(np.searchsorted(limits, x, side="right"), len(limits) - 1)] += 1
    check(list(h.bucket) == list(expected), f"{where}: bucket counts {list(h.bucket)}, expected {list(expected)}")


def check_run(run):
    acc = ea.EventAccumulator(run["dir"], size_guidance=keep_everything())
    acc.Reload()
    tags = acc.Tags()
    d = run["dir"]
    for kind, want in (("scalars", run.get("scalars", {})), ("histograms", run.get("histograms", {})),
                       ("images", run.get("images", {}))):
        check(sorted(tags[kind]) == sorted(want), f"{d}: {kind} tags {sorted(tags[kind])}, expected {sorted(want)}")
    check(sorted(tags["tensors"]) == sorted(run.get("texts", {})),
          f"{d}: text tags {sorted(tags['tensors'])}, expected {sorted(run.get('texts', {}))}")

    for tag, points in run.get("scalars", {}).items():
        got = acc.Scalars(tag) if tag in tags["scalars"] else []
        check(len(got) == len(points), f"{d} {tag}: {len(got)} scalars, expected {len(points)}")
        for g, p in zip(got, points):
            check(g.step == p[0], f"{d} {tag}: step {g.step}, expected {p[0]}")
            check(g.value == float(np.float32(p[1])), f"{d} {tag} step {p[0]}: {g.value}, expected {p[1]}")
            if len(p) > 2:
                check(g.wall_time == p[2], f"{d} {tag} step {p[0]}: wall time {g.wall_time}, expected {p[2]}")

    for tag, items in run.get("histograms", {}).items():
        got = acc.Histograms(tag) if tag in tags["histograms"] else []
        check(len(got) == len(items), f"{d} {tag}: {len(got)} histograms, expected {len(items)}")
        for g, item in zip(got, items):
            check(g.step == item["step"], f"{d} {tag}: step {g.step}, expected {item['step']}")
            check_histogram(f"{d} {tag} step {item['step']}", g, item["values"])

    for tag, items in run.get("images", {}).items():
        got = acc.Images(tag) if tag in tags["images"] else []
        check(len(got) == len(items), f"{d} {tag}: {len(got)} images, expected {len(items)}")
        for g, item in zip(got, items):
            where = f"{d} {tag} step {item['step']}"
            check(g.step == item["step"], f"{where}: step {g.step}")
            check((g.height, g.width) == (item["height"], item["width"]), f"{where}: size {g.width}x{g.height}")
            pixels = np.asarray(Image.open(io.BytesIO(g.encoded_image_string)))
            if pixels.ndim == 2:
                pixels = pixels[:, :, None]
            want = np.asarray(item["pixels"], dtype=np.uint8).reshape(item["height"], item["width"], item["channels"])
            check(pixels.shape == want.shape and (pixels == want).all(), f"{where}: the decoded pixels differ")

    for tag, points in run.get("texts", {}).items():
        got = acc.Tensors(tag) if tag in tags["tensors"] else []
        check(len(got) == len(points), f"{d} {tag}: {len(got)} texts, expected {len(points)}")
        check(acc.SummaryMetadata(tag).plugin_data.plugin_name == "text", f"{d} {tag}: not marked as text")
        for g, p in zip(got, points):
            text = tensor_util.make_ndarray(g.tensor_proto).item().decode("utf-8")
            check(g.step == p[0] and text == p[1], f"{d} {tag}: step {g.step} text {text!r}, expected {p[0]} {p[1]!r}")
            if len(p) > 2:
                check(g.wall_time == p[2], f"{d} {tag} step {p[0]}: wall time {g.wall_time}, expected {p[2]}")


with open(sys.argv[1]) as f:
    for r in json.load(f)["runs"]:
        check_run(r)
print("\n".join(errors) if errors else "ok")
sys.exit(1 if errors else 0)
