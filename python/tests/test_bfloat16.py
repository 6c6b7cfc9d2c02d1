"""bfloat16 from Python: casts in and out, exact float32 values back, and NumPy's refusal (NumPy
has no bfloat16) with the way to a float32 copy (docs/mixed_precision.md)."""
import struct

import numpy as np
import pytest

import strata


def _bf16_round(x):
    # Round to nearest even on the float32 bits, independent of the library.
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u))[0]


def test_cast_round_trip_and_item():
    values = np.array([1.0, 3.14159265, -2.5e-3, 1.00390625, 65504.0], np.float32)
    t = strata.from_numpy(values).to(strata.bfloat16)
    assert t.dtype == "bfloat16"
    back = np.asarray(t.float())
    assert back.dtype == np.float32
    assert back.tolist() == [_bf16_round(float(v)) for v in values]
    assert t.tolist() == back.tolist()
    assert strata.cast(strata.from_numpy(values), "bfloat16").dtype == "bfloat16"
    assert isinstance(t[1].item(), float)


def test_numpy_refuses_bfloat16_and_says_how_to_copy():
    t = strata.from_numpy(np.ones(3, np.float32)).to(strata.bfloat16)
    with pytest.raises(strata.Error, match=r"NumPy has no bfloat16.*\.float\(\)"):
        t.numpy()
    # NumPy reads the buffer protocol first; the buffer's format names bfloat16 and the way out.
    with pytest.raises(ValueError, match=r"bfloat16.*call \.float\(\) for a float32 copy"):
        np.asarray(t)


def test_bfloat16_arithmetic_keeps_the_dtype():
    a = strata.from_numpy(np.array([1.5, 2.25], np.float32)).to("bfloat16")
    assert (a * a).dtype == "bfloat16"
    assert (a * a).float().tolist() == [2.25, 5.0625]


def _bf16_round_array(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def test_autocast_bf16_runs_matmul_in_bf16(monkeypatch):
    monkeypatch.setenv("STRATA_BF16_EMULATE", "1")  # oneDNN's emulation where the CPU has no bf16
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 64)).astype(np.float32)
    b = rng.standard_normal((64, 16)).astype(np.float32)
    exact = np.asarray(strata.matmul(strata.from_numpy(a), strata.from_numpy(b)))
    with strata.autocast_bf16() as active:
        mixed = np.asarray(strata.matmul(strata.from_numpy(a), strata.from_numpy(b)))
    assert active
    assert mixed.dtype == np.float32
    # bf16 operands, float32 accumulation: float64 products of the rounded operands, to 1e-5.
    want = _bf16_round_array(a).astype(np.float64) @ _bf16_round_array(b).astype(np.float64)
    np.testing.assert_allclose(mixed, want, rtol=1e-5, atol=1e-5)
    assert not np.array_equal(mixed, exact)
    with strata.autocast_bf16(enabled=False) as active:
        assert not active
        assert np.array_equal(np.asarray(strata.matmul(strata.from_numpy(a), strata.from_numpy(b))), exact)
