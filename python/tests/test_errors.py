"""Misuse from Python raises, never crashes: Ctrl-C in fit, wrong dtypes and shapes, indices,
lifetimes of views after their owner is dropped."""
import gc
import os
import signal
import sys

import numpy as np
import pytest

import strata
from strata import nn


def test_ctrl_c_stops_fit_cleanly():
    x = np.random.default_rng(0).standard_normal((512, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(inp))
    model(x[:1])
    batches = []

    class PressCtrlC:
        def on_batch_end(self, batch, logs):
            batches.append(batch)
            if batch == 2:
                os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        strata.train.fit(model, strata.optim.SGD(model, lr=0.1), x, y, epochs=5, batch_size=16,
                         callbacks=[PressCtrlC()], verbose=0)
    assert batches == [0, 1, 2]  # stopped after the batch it came in
    assert np.isfinite(np.asarray(model(x[:2]))).all()  # the model is whole and usable


def test_wrong_dtypes_shapes_and_indices_raise():
    with pytest.raises(strata.Error, match="int64"):
        strata.exp(strata.from_numpy(np.arange(3)))  # exp needs floats
    with pytest.raises(strata.Error, match=r"\[3\]"):
        strata.add(strata.ones([2]), strata.ones([3]))
    with pytest.raises(strata.Error, match="too many indices"):
        strata.ones([2])[0, 0]
    with pytest.raises(TypeError):
        strata.ones([2])["a"]
    with pytest.raises(strata.Error, match="item"):
        strata.ones([2]).item()
    dense = nn.Dense(3)
    dense(np.ones((1, 4), np.float32))
    with pytest.raises(strata.Error, match="dense"):
        dense(np.ones((1, 5), np.float32))  # built for 4 features


def test_views_outlive_their_owners_in_both_directions():
    t = strata.from_numpy(np.full((1000,), 7.0, np.float32))
    gc.collect()
    view = np.asarray(t[10:20])
    del t
    gc.collect()
    assert view.sum() == 70.0
    a = np.ones((3, 3), np.float32)
    base_refs = sys.getrefcount(a)
    ts = [strata.from_numpy(a) for _ in range(5)]
    assert sys.getrefcount(a) == base_refs + 5
    del ts
    gc.collect()
    assert sys.getrefcount(a) == base_refs


def test_layer_errors_are_option_errors_with_cpp_messages():
    with pytest.raises(strata.OptionError, match="Conv2d.*n_filter.*got -3"):
        nn.Conv2d(n_filter=-3)
    with pytest.raises(strata.OptionError, match="Dropout.*\"p\" must be a number in \\[0, 1\\], got 1.5"):
        nn.Dropout(p=1.5)


def test_read_only_arrays_are_copied_not_written_through():
    data = bytes(np.arange(4, dtype=np.float32).tobytes())
    frozen = np.frombuffer(data, np.float32)
    assert not frozen.flags.writeable
    t = strata.from_numpy(frozen)
    assert t.data_ptr() != frozen.ctypes.data  # a copy
    t[0] = 99.0
    assert np.frombuffer(data, np.float32)[0] == 0.0  # the bytes object is untouched
    broadcast = np.broadcast_to(np.ones(3, np.float32), (2, 3))  # read-only, stride 0
    assert strata.from_numpy(broadcast).tolist() == [[1.0] * 3] * 2


def test_one_layer_called_from_several_threads_at_once():
    import threading

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Dense(32, act="relu"), nn.Dense(4)

        def forward(self, x):
            return self.b(self.a(x))

    x = np.ones((8, 16), np.float32)
    for make in (lambda: nn.Dense(64), Net):  # unbuilt: the first calls build it
        for _ in range(20):
            layer, errors, outputs = make(), [], []

            def run():
                try:
                    for _ in range(10):
                        outputs.append(np.asarray(layer(x)).copy())
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=run) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert errors == [] and len(outputs) == 40
            assert all(np.array_equal(o, outputs[0]) for o in outputs)  # one set of weights
            assert len(layer.weights) == (2 if isinstance(layer, nn.Dense) else 4)
