#!/usr/bin/env python3
"""Pretrained-weight files for the model zoo's tests (tests/nn/test_zoo_pretrained.cpp).

usage: make_zoo_weights.py DIR   writes into DIR, with NumPy and h5py and seeded random values:
  mobilenet_v1.h5     Keras 2 save_weights of keras.applications.MobileNet (alpha 1, 224, top):
                      every layer under Keras's name, weightless ones included, each weight under
                      Keras's name ("conv_dw_1/depthwise_kernel:0") and order (batch norm: gamma,
                      beta, moving_mean, moving_variance)
  mobilenet_ref.npz   x [1, 16, 16, 3]; "features": NumPy's forward of x up to conv_pw_2_bn (with
                      its ReLU6); and some weights by their Strata names ("conv_dw_5/W" as
                      "conv_dw_5.W")
  squeezenet_v1.npz   TensorLayer's save_npz (np.savez(name, params=list)) of SqueezeNetV1's
                      weights in TensorLayer's order
Exits 0 on success, 77 when numpy or h5py is missing (the tests then skip).
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(77)

sys.dont_write_bytecode = True  # the test runs this: leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from make_keras_recurrent import write_keras  # noqa: E402  (exits 77 itself without h5py)

rng = np.random.default_rng(7)


def normal(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def bn(name, c):
    return (name, [(f"{name}/gamma:0", 1 + normal(c, scale=0.1)), (f"{name}/beta:0", normal(c, scale=0.1)),
                   (f"{name}/moving_mean:0", normal(c, scale=0.1)),
                   (f"{name}/moving_variance:0", rng.uniform(0.5, 1.5, c).astype(np.float32))])


def mobilenet_layers():
    """keras.applications.mobilenet.MobileNet's layers in model.layers order."""
    layers = [("input_1", []), ("conv1", [("conv1/kernel:0", normal(3, 3, 3, 32))]), bn("conv1_bn", 32),
              ("conv1_relu", [])]
    filters = [64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024]
    strides = [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]
    c = 32
    for i, (f, s) in enumerate(zip(filters, strides), start=1):
        if s == 2:
            layers.append((f"conv_pad_{i}", []))
        layers += [(f"conv_dw_{i}", [(f"conv_dw_{i}/depthwise_kernel:0", normal(3, 3, c, 1))]),
                   bn(f"conv_dw_{i}_bn", c), (f"conv_dw_{i}_relu", []),
                   (f"conv_pw_{i}", [(f"conv_pw_{i}/kernel:0", normal(1, 1, c, f, scale=0.1))]),
                   bn(f"conv_pw_{i}_bn", f), (f"conv_pw_{i}_relu", [])]
        c = f
    layers += [("global_average_pooling2d", []), ("reshape_1", []), ("dropout", []),
               ("conv_preds", [("conv_preds/kernel:0", normal(1, 1, 1024, 1000, scale=0.05)),
                               ("conv_preds/bias:0", normal(1000))]),
               ("reshape_2", []), ("predictions", [])]
    return layers


def conv(x, w, stride, pad, depthwise=False):
    """NHWC convolution, w [kh, kw, in, out] (depthwise: [kh, kw, c, 1]); pad ((top, bottom), (left, right))."""
    x = np.pad(x, ((0, 0), pad[0], pad[1], (0, 0)))
    kh, kw = w.shape[:2]
    oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = 0
    for a in range(kh):
        for b in range(kw):
            patch = x[:, a:a + stride * (oh - 1) + 1:stride, b:b + stride * (ow - 1) + 1:stride, :]
            out = out + (patch * w[a, b, :, 0] if depthwise else patch @ w[a, b])
    return out


def same(size, k, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return (total // 2, total - total // 2)


def bn_relu6(x, w):
    gamma, beta, mean, var = w
    return np.clip(gamma * (x - mean) / np.sqrt(var + 1e-3) + beta, 0, 6)


def mobilenet_features(x, weights):
    """Keras's MobileNet from the input to conv_pw_2_relu."""
    def w(name):
        return [v for _, v in weights[name]]
    p = same(x.shape[1], 3, 2)
    h = bn_relu6(conv(x, w("conv1")[0], 2, (p, p)), w("conv1_bn"))
    h = bn_relu6(conv(h, w("conv_dw_1")[0], 1, ((1, 1), (1, 1)), depthwise=True), w("conv_dw_1_bn"))
    h = bn_relu6(conv(h, w("conv_pw_1")[0], 1, ((0, 0), (0, 0))), w("conv_pw_1_bn"))
    h = conv(h, w("conv_dw_2")[0], 2, ((0, 1), (0, 1)), depthwise=True)  # conv_pad_2, then VALID
    h = bn_relu6(h, w("conv_dw_2_bn"))
    return bn_relu6(conv(h, w("conv_pw_2")[0], 1, ((0, 0), (0, 0))), w("conv_pw_2_bn"))


def squeezenet_params():
    """TensorLayer's SqueezeNetV1 weights in its all_weights order: W, b of each Conv2d."""
    params = [normal(3, 3, 3, 64), normal(64)]
    c = 64
    for s in [16, 16, 32, 32, 48, 48, 64, 64]:
        params += [normal(1, 1, c, s), normal(s), normal(1, 1, s, 4 * s), normal(4 * s),
                   normal(3, 3, s, 4 * s), normal(4 * s)]
        c = 8 * s
    return params + [normal(1, 1, c, 1000), normal(1000)]


def main(d):
    layers = mobilenet_layers()
    write_keras(f"{d}/mobilenet_v1.h5", layers)
    weights = dict(layers)
    x = rng.uniform(-1, 1, (1, 16, 16, 3)).astype(np.float32)
    np.savez(f"{d}/mobilenet_ref.npz", x=x, features=mobilenet_features(x, weights).astype(np.float32),
             **{"conv1.W": weights["conv1"][0][1], "conv_dw_5.W": weights["conv_dw_5"][0][1],
                "conv_pw_13_bn.beta": weights["conv_pw_13_bn"][1][1],
                "conv_pw_13_bn.gamma": weights["conv_pw_13_bn"][0][1],
                "conv_pw_13_bn.moving_var": weights["conv_pw_13_bn"][3][1],
                "conv_preds.W": weights["conv_preds"][0][1], "conv_preds.b": weights["conv_preds"][1][1]})
    # NumPy of TensorLayer's time made a list of differently shaped arrays an object array.
    arrays = squeezenet_params()
    params = np.empty(len(arrays), dtype=object)
    for i, a in enumerate(arrays):
        params[i] = a
    np.savez(f"{d}/squeezenet_v1.npz", params=params)


if __name__ == "__main__":
    main(sys.argv[1])
