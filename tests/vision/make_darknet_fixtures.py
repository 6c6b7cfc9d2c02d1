#!/usr/bin/env python3
"""Writes the darknet fixtures of tests/vision/test_darknet_*.cpp with an independent PyTorch model.

A darknet cfg is read here by its own small interpreter (darknet's rules re-read from
AlexeyAB/darknet's parser.c, convolutional_layer.c, maxpool_layer.c, route_layer.c and
shortcut_layer.c, in NCHW as darknet computes), not by Strata. For fixtures/small.cfg (every
section and activation the reader supports: batch norm, grouped convolution, route groups,
shortcut, upsample, maxpool 2/2 and darknet's stride-1 size-5 SPP pool, two [yolo] heads) it writes

  small.weights      random weights in darknet's layout (version 0.1.0: `seen` as int32)
  small.npz          input [1, H, W, 3] NHWC in [0, 1] and out0, out1: the raw [N, h, w, A*(5+C)]
                     outputs of the convolutions before the [yolo] layers, NHWC
  parameters.json    the parameter counts of the published yolov4.cfg and yolov4-tiny.cfg at
                     several sizes and class counts (darknet's count: weights, biases and the
                     batch norms' scales, rolling means and variances)

Run with the benchmark venv's PyTorch (torch 2.x, NumPy; nothing else):

    ~/.cache/strata-bench-venv/bin/python tests/vision/make_darknet_fixtures.py
"""
import json
import pathlib

import numpy as np
import torch
import torch.nn.functional as F

HERE = pathlib.Path(__file__).resolve().parent / "fixtures"


def read_cfg(path):
    """[(section, {key: value})] with darknet's strip(): whitespace removed, '#' ';' comments."""
    sections = []
    for raw in path.read_text().splitlines():
        line = "".join(raw.split())
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            sections.append((line[1:-1], {}))
        else:
            key, value = line.split("=", 1)
            sections[-1][1][key] = value
    return sections


def act(name, x):
    if name == "leaky":
        return F.leaky_relu(x, 0.1)
    if name == "mish":
        return x * torch.tanh(F.softplus(x))
    if name == "logistic":
        return torch.sigmoid(x)
    if name == "relu":
        return F.relu(x)
    if name == "swish":
        return x * torch.sigmoid(x)
    assert name == "linear", name
    return x


class Darknet:
    """The cfg's layers over NCHW tensors, with darknet's .weights order for the parameters."""

    def __init__(self, sections, width=None, height=None, classes=None):
        net = sections[0][1]
        self.width = int(width or net.get("width", 416))
        self.height = int(height or net.get("height", 416))
        self.channels = int(net.get("channels", 3))
        self.layers = sections[1:]
        self.classes = classes
        self.convs = []  # per [convolutional]: dict of tensors
        c, h, w = self.channels, self.height, self.width
        self.shapes = []  # (c, h, w) per layer
        for i, (kind, o) in enumerate(self.layers):
            if kind == "convolutional":
                filters = int(o.get("filters", 1))
                if classes and i + 1 < len(self.layers) and self.layers[i + 1][0] == "yolo":
                    filters = len(self.layers[i + 1][1]["mask"].split(",")) * (classes + 5)
                size, stride = int(o.get("size", 1)), int(o.get("stride", 1))
                pad = size // 2 if int(o.get("pad", 0)) else int(o.get("padding", 0))
                groups = int(o.get("groups", 1))
                bn = int(o.get("batch_normalize", 0))
                self.convs.append(dict(filters=filters, size=size, stride=stride, pad=pad, groups=groups, bn=bn,
                                       cin=c, act=o.get("activation", "logistic")))
                c, h, w = filters, (h + 2 * pad - size) // stride + 1, (w + 2 * pad - size) // stride + 1
            elif kind == "route":
                refs = [int(r) for r in o["layers"].split(",")]
                refs = [r if r >= 0 else i + r for r in refs]
                groups = int(o.get("groups", 1))
                c = sum(self.shapes[r][0] for r in refs) // groups
                h, w = self.shapes[refs[0]][1:]
            elif kind == "upsample":
                s = int(o.get("stride", 2))
                h, w = h * s, w * s
            elif kind == "maxpool":
                stride = int(o.get("stride", 1))
                size = int(o.get("size", stride))
                padding = int(o.get("padding", size - 1))
                h, w = (h + padding - size) // stride + 1, (w + padding - size) // stride + 1
            self.shapes.append((c, h, w))

    def parameter_count(self):
        n = 0
        for cv in self.convs:
            n += cv["filters"] * (4 if cv["bn"] else 1)
            n += cv["filters"] * cv["cin"] // cv["groups"] * cv["size"] ** 2
        return n

    def random_weights(self, rng):
        for cv in self.convs:
            f = cv["filters"]
            fan_in = cv["cin"] // cv["groups"] * cv["size"] ** 2
            cv["biases"] = rng.normal(0, 0.1, f).astype(np.float32)
            if cv["bn"]:
                cv["scales"] = rng.uniform(0.5, 1.5, f).astype(np.float32)
                cv["mean"] = rng.normal(0, 0.1, f).astype(np.float32)
                cv["variance"] = rng.uniform(0.5, 1.5, f).astype(np.float32)
            cv["weights"] = (rng.normal(0, 1, (f, cv["cin"] // cv["groups"], cv["size"], cv["size"])) *
                             np.sqrt(2.0 / fan_in)).astype(np.float32)

    def write_weights(self, path):
        with open(path, "wb") as f:
            np.array([0, 1, 0], np.int32).tofile(f)  # major, minor, revision: 0.1 keeps `seen` 32-bit
            np.array([0], np.int32).tofile(f)
            for cv in self.convs:
                cv["biases"].tofile(f)
                if cv["bn"]:
                    cv["scales"].tofile(f)
                    cv["mean"].tofile(f)
                    cv["variance"].tofile(f)
                cv["weights"].tofile(f)

    def forward(self, x):
        """x [N, C, H, W] -> the inputs of the [yolo] layers, NCHW."""
        outs, heads, k = [], [], 0
        for i, (kind, o) in enumerate(self.layers):
            if kind == "convolutional":
                cv = self.convs[k]
                k += 1
                t = lambda a: torch.from_numpy(a)
                x = F.conv2d(x, t(cv["weights"]), None if cv["bn"] else t(cv["biases"]), cv["stride"], cv["pad"],
                             groups=cv["groups"])
                if cv["bn"]:  # darknet's normalize_cpu: eps 1e-5, then scales and biases
                    x = F.batch_norm(x, t(cv["mean"]), t(cv["variance"]), t(cv["scales"]), t(cv["biases"]),
                                     training=False, eps=1e-5)
                x = act(cv["act"], x)
            elif kind == "route":
                refs = [int(r) for r in o["layers"].split(",")]
                groups, gid = int(o.get("groups", 1)), int(o.get("group_id", 0))
                parts = []
                for r in refs:
                    src = outs[r if r >= 0 else i + r]
                    part = src.shape[1] // groups
                    parts.append(src[:, gid * part:(gid + 1) * part])
                x = torch.cat(parts, 1)
            elif kind == "shortcut":
                for r in o["from"].split(","):
                    r = int(r)
                    x = x + outs[r if r >= 0 else i + r]
                x = act(o.get("activation", "linear"), x)
            elif kind == "upsample":
                x = F.interpolate(x, scale_factor=int(o.get("stride", 2)), mode="nearest")
            elif kind == "maxpool":
                stride = int(o.get("stride", 1))
                size = int(o.get("size", stride))
                padding = int(o.get("padding", size - 1))
                before = padding // 2  # darknet: windows start at -padding / 2
                after = padding - before
                x = F.max_pool2d(F.pad(x, (before, after, before, after), value=-float("inf")), size, stride)
            elif kind == "yolo":
                heads.append(x)
            outs.append(x)
        return heads


def main():
    rng = np.random.default_rng(45)
    small = Darknet(read_cfg(HERE / "small.cfg"))
    small.random_weights(rng)
    small.write_weights(HERE / "small.weights")
    image = rng.uniform(0, 1, (1, small.height, small.width, small.channels)).astype(np.float32)
    with torch.no_grad():
        heads = small.forward(torch.from_numpy(image).permute(0, 3, 1, 2))
    arrays = {"input": image}
    for n, h in enumerate(heads):
        arrays[f"out{n}"] = h.permute(0, 2, 3, 1).contiguous().numpy()
    np.savez(HERE / "small.npz", **arrays)

    counts = {"small": small.parameter_count()}
    for name, sizes in (("yolov4", (608, 128)), ("yolov4-tiny", (416, 128))):
        sections = read_cfg(HERE / f"{name}.cfg")
        for size in sizes:
            for classes in (None, 3):
                key = f"{name}@{size}" + (f"/{classes}" if classes else "")
                counts[key] = Darknet(sections, size, size, classes).parameter_count()
    (HERE / "parameters.json").write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n")
    print(counts)


if __name__ == "__main__":
    main()
