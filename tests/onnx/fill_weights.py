"""Gives the stripped weights of a committed whole-model file seeded values: fill_weights.py
STRIPPED.onnx OUT.onnx (tests/onnx/test_onnx_whole_models.cpp; the files come from
tests/onnx/fixtures/make_whole_model_fixtures.py, which strips them with strip_weights below).

A stripped weight is a float initializer that a node reads as weights (WEIGHT_INPUTS) and that
has dims but no data. Its values come from numpy's PCG64 seeded with the CRC-32 of its name, by
its role, so that a deep network's activations neither vanish nor blow up: convolution and dense
kernels He-scaled (uniform, variance 2 / fan-in), biases uniform in [-0.1, 0.1], batch-norm
scale in [0.5, 1.5], shift and mean in [-0.2, 0.2], variance in [0.5, 2], layer-norm scale and
shift alike, recurrent weights uniform in [-1/sqrt(hidden), 1/sqrt(hidden)] (PyTorch's), an
embedding table of variance 1. Run in the tests' venv (onnx, numpy).
"""
import sys
import zlib

import numpy as np
import onnx

# The inputs a node reads as weights, by operator.
WEIGHT_INPUTS = {
    "Conv": (1, 2), "ConvTranspose": (1, 2), "Gemm": (1, 2), "MatMul": (1,), "BatchNormalization": (1, 2, 3, 4),
    "LayerNormalization": (1, 2), "LSTM": (1, 2, 3), "GRU": (1, 2, 3), "RNN": (1, 2, 3), "Gather": (0,), "Add": (0, 1),
}


def weight_roles(graph):
    """{initializer name: (node, input index)} for the float initializers of more than 16 elements
    that a node reads as weights (the first such node)."""
    inits = {t.name: t for t in graph.initializer}
    roles = {}
    for node in graph.node:
        for i in WEIGHT_INPUTS.get(node.op_type, ()):
            t = inits.get(node.input[i]) if i < len(node.input) else None
            if t is not None and t.data_type == onnx.TensorProto.FLOAT and int(np.prod(t.dims)) > 16:
                roles.setdefault(t.name, (node, i))
    return roles


def strip_weights(model):
    roles = weight_roles(model.graph)
    for t in model.graph.initializer:
        if t.name in roles:
            t.ClearField("raw_data")
            t.ClearField("float_data")


def attribute(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def values(node, i, dims, rng):
    op = node.op_type

    def uniform(lo, hi):  # float32 draws, scaled in place: a VGG's 130 million weights take a second
        x = rng.random(dims, dtype=np.float32)
        x *= np.float32(hi - lo)
        x += np.float32(lo)
        return x

    def he(fan_in):  # He's variance 2 / fan-in, uniform
        limit = np.sqrt(6.0 / fan_in)
        return uniform(-limit, limit)

    if op in ("Conv", "ConvTranspose") and i == 1:
        return he(np.prod(dims[1:]) if op == "Conv" else dims[0] * np.prod(dims[2:]))
    if op == "Gemm" and i == 1:
        return he(dims[1] if attribute(node, "transB", 0) else dims[0])
    if op == "MatMul":
        return he(dims[-2])
    if op == "BatchNormalization":
        return uniform(*{1: (0.5, 1.5), 2: (-0.2, 0.2), 3: (-0.2, 0.2), 4: (0.5, 2.0)}[i])
    if op == "LayerNormalization":
        return uniform(0.5, 1.5) if i == 1 else uniform(-0.2, 0.2)
    if op in ("LSTM", "GRU", "RNN"):
        k = 1 / np.sqrt(attribute(node, "hidden_size", dims[-1]))
        return uniform(-k, k)
    if op == "Gather":  # an embedding table: variance 1
        return uniform(-np.sqrt(3.0), np.sqrt(3.0))
    return uniform(-0.1, 0.1)  # biases


def fill_weights(model):
    roles = weight_roles(model.graph)
    for t in model.graph.initializer:
        if t.name in roles and not t.raw_data and not t.float_data:
            rng = np.random.Generator(np.random.PCG64(zlib.crc32(t.name.encode())))
            node, i = roles[t.name]
            dims = tuple(int(d) for d in t.dims)
            t.raw_data = np.asarray(values(node, i, dims, rng), dtype="<f4").tobytes()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = onnx.load(sys.argv[1])
    fill_weights(model)
    onnx.save(model, sys.argv[2])
