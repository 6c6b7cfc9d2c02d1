"""fit's bf16_mixed_precision from Python (docs/mixed_precision.md): with STRATA_BF16_EMULATE=1 the
training steps run in bf16 (history["bf16"] is 1, the weights differ from float32's yet train as
well); without native bf16 and without emulation, fit warns once and trains in float32, exactly as
a float32 run does."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import strata
from strata import nn


def _overlapping_blobs(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.standard_normal((n, 4)).astype(np.float32) + (y[:, None] * 1.5 - 0.75)
    return x.astype(np.float32), y.astype(np.int64)


def _fit_from(start, x, y, **options):
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(nn.Dense(16, act="relu")(inp)))
    model(x[:1])
    model.set_weights(start)
    history = strata.train.fit(model, strata.optim.Adam(model, lr=0.01), x, y, epochs=3, batch_size=32, seed=3,
                               verbose=0, **options)
    return history, model.get_weights()


def _start_weights(x):
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(nn.Dense(16, act="relu")(inp)))
    model(x[:1])
    return model.get_weights()


def test_fit_bf16_mixed_precision_runs_bf16(monkeypatch):
    monkeypatch.setenv("STRATA_BF16_EMULATE", "1")  # oneDNN's emulated bf16 where the CPU has none
    with strata.autocast_bf16() as active:
        if not active:
            pytest.skip("no bf16 on this CPU, not even emulated (oneDNN needs AVX-512)")
    x, y = _overlapping_blobs(512, 1)
    start = _start_weights(x)
    f32, f32_weights = _fit_from(start, x, y)
    bf16, bf16_weights = _fit_from(start, x, y, bf16_mixed_precision=True)
    assert bf16["bf16"] == [1.0, 1.0, 1.0]
    assert "bf16" not in f32
    # bf16 ran: the products were rounded, so the weights are not float32's...
    assert any(not np.array_equal(a, b) for a, b in zip(f32_weights, bf16_weights))
    # ...yet the float32 master weights train as well (bf16 keeps 8 bits: losses agree to a few %).
    np.testing.assert_allclose(bf16["loss"], f32["loss"], rtol=0.05)
    assert abs(bf16["accuracy"][-1] - f32["accuracy"][-1]) < 0.03
    assert f32["accuracy"][-1] > 0.8


_FALLBACK = r"""
import json, sys
import numpy as np
import strata
sys.path.insert(0, sys.argv[1])
from test_fit_bf16 import _fit_from, _overlapping_blobs, _start_weights
with strata.autocast_bf16() as active:
    pass
if active:
    print(json.dumps({"native": True}))
    sys.exit(0)
x, y = _overlapping_blobs(256, 2)
start = _start_weights(x)
f32, f32_weights = _fit_from(start, x, y)
sys.stderr.write("--- fit with bf16_mixed_precision\n")
mixed, mixed_weights = _fit_from(start, x, y, bf16_mixed_precision=True)
print(json.dumps({"native": False, "f32": f32, "mixed": mixed,
                  "same_weights": all(np.array_equal(a, b) for a, b in zip(f32_weights, mixed_weights))}))
"""


def test_fit_bf16_mixed_precision_falls_back_to_float32_with_one_warning():
    # A fresh process: the warning is printed once per process, and the environment must not ask
    # for emulation. One thread, so that two float32 runs give the same bits.
    env = {k: v for k, v in os.environ.items() if k != "STRATA_BF16_EMULATE"}
    env.update(OMP_NUM_THREADS="1", STRATA_ADAPTIVE_THREADS="0")
    here = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, "-c", _FALLBACK, here], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    if result["native"]:
        pytest.skip("this CPU has native bf16: there is no fallback to see")
    # The warning comes with the bf16 run only, once for its three epochs.
    before, after = run.stderr.split("--- fit with bf16_mixed_precision\n")
    assert "no native bf16" not in before
    assert after.count("no native bf16") == 1, after
    assert "STRATA_BF16_EMULATE=1" in after
    assert result["mixed"]["bf16"] == [0.0, 0.0, 0.0]
    # float32 ran: the same losses and weights as the float32 run, to the bit.
    assert result["mixed"]["loss"] == result["f32"]["loss"]
    assert result["same_weights"]
