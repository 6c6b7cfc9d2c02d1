"""strata.nn.load_onnx_any_size: an ONNX model with a symbolic axis past the batch, run at two
sizes. The file is written here as protobuf bytes (the test needs no onnx package): x [N, L, 4]
-> MatMul W [4, 3] -> Softmax -> y [N, L, 3], at opset 17."""
import numpy as np
import pytest

import strata
from strata import nn


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, value):
    """A protobuf field: an int as a varint, bytes or str length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _value_info(name, dims):
    shape = b"".join(_field(1, _field(2, d) if isinstance(d, str) else _field(1, d)) for d in dims)
    return _field(1, name) + _field(2, _field(1, _field(1, 1) + _field(2, shape)))  # float tensor


def _model(w):
    node = lambda inputs, outputs, op: (b"".join(_field(1, i) for i in inputs) +  # noqa: E731
                                        b"".join(_field(2, o) for o in outputs) + _field(4, op))
    weight = (b"".join(_field(1, d) for d in w.shape) + _field(2, 1) + _field(8, "W") +
              _field(9, w.astype("<f4").tobytes()))
    graph = (_field(1, node(["x", "W"], ["h"], "MatMul")) + _field(1, node(["h"], ["y"], "Softmax")) +
             _field(2, "any_length") + _field(5, weight) + _field(11, _value_info("x", ["N", "L", 4])) +
             _field(12, _value_info("y", ["N", "L", 3])))
    return _field(1, 8) + _field(7, graph) + _field(8, _field(1, "") + _field(2, 17))


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_symbolic_length_runs_at_each_length(tmp_path):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    path = tmp_path / "any_length.onnx"
    path.write_bytes(_model(w))
    with pytest.raises(strata.Error, match="axis 1 is symbolic \\('L'\\)"):
        nn.load_onnx(str(path))
    net = nn.load_onnx_any_size(str(path), max_cached_shapes=4)
    assert isinstance(net, nn.ShapePolymorphicModel) and net.num_inputs == 1 and net.num_outputs == 1
    for length in (3, 5):
        x = rng.standard_normal((2, length, 4)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(net(x)), _softmax(x @ w), rtol=1e-5, atol=1e-6)
    assert net.cached_shapes == 2
    assert net.sizes_of([[2, 7, 4]]) == {"L": 7}
    assert len(net.trainable_weights) == 1  # the MatMul's W, once
    with pytest.raises(strata.Error, match="input 'x' axis 2 has size 4 in the file, got 5"):
        net(np.zeros((2, 3, 5), np.float32))
