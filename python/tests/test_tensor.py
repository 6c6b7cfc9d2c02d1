"""Tensors and NumPy: the same memory on both sides, lifetimes held both ways, operators,
indexing, autograd against hand-worked gradients."""
import gc
import sys

import numpy as np
import pytest

import strata


def test_from_numpy_shares_memory_and_keeps_the_array_alive():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = strata.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    assert t.shape == (3, 4) and t.dtype == "float32"
    a[1, 2] = 100.0  # written through NumPy, seen by the tensor
    assert t[1, 2].item() == 100.0
    refs = sys.getrefcount(a)
    del t
    gc.collect()
    assert sys.getrefcount(a) == refs - 1  # the tensor's reference went with it
    b = np.ones((2, 2), np.float64)
    u = strata.from_numpy(b)
    del b
    gc.collect()
    assert u.sum().item() == 4.0  # the array lives as long as the tensor


def test_numpy_view_shares_memory_and_keeps_the_tensor_alive():
    t = strata.ones([2, 3])
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr()
    n = t.numpy()
    assert n.ctypes.data == t.data_ptr()
    t[0, 0] = 5.0
    assert a[0, 0] == 5.0
    del t
    gc.collect()
    assert a.sum() == 10.0  # the tensor lives as long as the array


def test_strided_views_cross_without_copies():
    a = np.arange(24, dtype=np.int64).reshape(4, 6)[:, ::2]
    t = strata.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    back = np.asarray(t.T)
    assert np.array_equal(back, a.T)
    with pytest.raises(strata.Error, match="stride"):
        strata.from_numpy(np.arange(5, dtype=np.float32)[::-1])


def test_dtypes_and_refusals():
    for dt in ["float32", "float64", "int64", "int32", "uint8", "bool"]:
        assert strata.from_numpy(np.zeros(3, dtype=dt)).dtype == dt
    with pytest.raises(strata.Error, match="float16"):
        strata.from_numpy(np.zeros(3, dtype=np.float16))


def test_dlpack_round_trip_without_copies():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = strata.from_dlpack(a)  # NumPy exports DLPack
    assert t.data_ptr() == a.ctypes.data
    back = np.from_dlpack(t)  # and imports ours
    assert back.ctypes.data == a.ctypes.data
    assert np.array_equal(back, a)


def test_operators_and_indexing_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    ta, tb = strata.from_numpy(a), strata.from_numpy(b)
    np.testing.assert_allclose(np.asarray(ta + tb), a + b, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ta * 2 - tb / 3), a * 2 - b / 3, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(1 - ta), 1 - a, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ta @ tb.T), a @ b.T, rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(ta > tb), a > b)
    np.testing.assert_allclose(np.asarray(ta[1:, ::2]), a[1:, ::2])
    np.testing.assert_allclose(np.asarray(ta[..., 1]), a[..., 1])
    np.testing.assert_allclose(np.asarray(ta[None, 2]), a[None, 2])
    np.testing.assert_allclose(np.asarray(strata.relu(ta)), np.maximum(a, 0))
    np.testing.assert_allclose(np.asarray(strata.softmax(ta)), np.exp(a) / np.exp(a).sum(-1, keepdims=True), rtol=1e-5)
    with pytest.raises(IndexError):
        ta[3]


def test_every_registered_op_is_a_function():
    missing = [name for name in strata.registered_ops if not callable(getattr(strata, name, None))]
    assert missing == []


def test_backward_and_grad_with_create_graph():
    x = strata.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x * x).sum()  # dy/dx = 3x^2, d2y/dx2 = 6x
    (g,) = strata.grad(y, [x], create_graph=True)
    np.testing.assert_allclose(np.asarray(g.detach()), [3.0, 12.0, 27.0])
    g.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), [6.0, 12.0, 18.0])
    with strata.no_grad():
        z = x * 2
    assert not z.requires_grad
    assert strata.is_grad_enabled()


def test_errors_carry_strata_messages():
    with pytest.raises(strata.Error, match=r"\[2, 3\]"):
        strata.matmul(strata.ones([2, 3]), strata.ones([2, 3]))
    assert issubclass(strata.OptionError, ValueError)
    assert issubclass(strata.LimitError, strata.Error)
