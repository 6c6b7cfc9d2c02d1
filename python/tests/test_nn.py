"""Layers with their declared options as keyword arguments, static and dynamic models, weights,
whole-model files, and training with fit and with a custom loop."""
import inspect
import pathlib
import threading

import numpy as np
import pytest

import strata
from strata import nn


def test_every_registered_layer_class_is_a_python_class_with_its_options():
    assert len(nn.layer_classes) > 100
    sig = inspect.signature(nn.Dense)
    assert list(sig.parameters)[:4] == ["units", "act", "in_units", "use_bias"]
    assert sig.parameters["in_units"].default == -1
    assert "units (int, default 0 [1, 2147483647]): output features" in nn.Dense.__doc__
    d = nn.Dense(units=5, act="relu", name="d1")
    assert isinstance(d, nn.Dense) and not isinstance(d, nn.Conv2d)
    assert d.get_config()["config"] == {"units": 5, "act": "relu", "in_units": -1, "use_bias": True}
    assert nn.Dense(7).get_config()["config"]["units"] == 7  # positional, as in C++
    # Initializers by name, keyword-only; not part of the saved config.
    ones = nn.Dense(2, w_init="ones", b_init={"name": "constant", "value": 0.25})
    np.testing.assert_allclose(np.asarray(ones(np.ones((1, 3), np.float32))), [[3.25, 3.25]])
    assert "w_init" in inspect.signature(nn.Dense).parameters


def test_bad_options_name_the_layer_and_the_option():
    with pytest.raises(TypeError, match="Dense: unknown option 'unit'.*units"):
        nn.Dense(unit=5)
    with pytest.raises(strata.OptionError, match=r'Dense.*"units" must be an integer in \[1, 2147483647\], got 0'):
        nn.Dense(units=0)
    with pytest.raises(ValueError, match='"act"'):
        nn.Dense(units=3, act=42)


def test_static_model_save_load_and_weights_as_numpy(tmp_path):
    x = nn.Input([None, 6])
    h = nn.Dense(8, act=strata.tanh, name="hidden")(x)
    y = nn.Dense(3, name="out")(h)
    model = nn.Model(x, y, name="mlp")
    data = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    before = np.asarray(model(data)).copy()
    names = model.named_weights()
    assert list(names) == ["hidden/W", "hidden/b", "out/W", "out/b"]
    assert np.asarray(names["hidden/W"]).shape == (6, 8)
    path = str(tmp_path / "mlp.safetensors")
    model.save(path)
    loaded = nn.Model.load(path)
    np.testing.assert_array_equal(np.asarray(loaded(data)), before)
    model.export_onnx(str(tmp_path / "mlp.onnx"))  # and back through ONNX
    np.testing.assert_allclose(np.asarray(nn.load_onnx(str(tmp_path / "mlp.onnx"))(data)), before, rtol=1e-5, atol=1e-6)
    weights = model.get_weights()
    weights[0][:] = 0
    model.set_weights(weights)
    assert np.abs(np.asarray(model.named_weights()["hidden/W"])).sum() == 0


class Mlp(nn.Module):
    def __init__(self):
        super().__init__("py_mlp")
        self.a = nn.Dense(16, act="relu")
        self.b = nn.Dense(2)

    def forward(self, x):
        return self.b(self.a(x))


def blobs(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.standard_normal((n, 4)).astype(np.float32) + (y[:, None] * 2.5 - 1.25)
    return x.astype(np.float32), y.astype(np.int64)


def test_dynamic_module_trains_with_a_custom_loop():
    net = Mlp()
    x, y = blobs(256, 0)
    net(x[:1])  # builds the weights
    assert len(net.trainable_weights) == 4
    opt = strata.optim.Adam(net.trainable_weights, lr=0.05)
    tx, ty = strata.from_numpy(x), strata.from_numpy(y)
    first = None
    for _ in range(60):
        loss = strata.cross_entropy(net(tx), ty)
        first = first if first is not None else loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.3 * first
    accuracy = (np.asarray(net(tx)).argmax(1) == y).mean()
    assert accuracy > 0.9


def test_fit_evaluate_predict_with_python_callbacks():
    x, y = blobs(512, 2)
    vx, vy = blobs(128, 3)
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(nn.Dense(16, act="relu")(inp)))
    model(x[:1])
    seen = []

    class Record:
        def on_epoch_end(self, epoch, logs):
            seen.append(epoch)
            logs["doubled_loss"] = 2 * logs["loss"]

    opt = strata.optim.Adam(model, lr=0.02)
    history = strata.train.fit(model, opt, x, y, epochs=4, batch_size=32, validation_data=(vx, vy),
                               callbacks=[Record()], verbose=0)
    assert seen == [0, 1, 2, 3]
    assert history["doubled_loss"] == pytest.approx([2 * v for v in history["loss"]])
    assert history["val_accuracy"][-1] > 0.9
    logs = strata.train.evaluate(model, vx, vy)
    assert logs["accuracy"] == pytest.approx(history["val_accuracy"][-1])
    assert np.asarray(strata.train.predict(model, vx)).shape == (128, 2)


def test_two_python_threads_train_at_once():
    results = {}

    def train(tag):
        x, y = blobs(256, 4)
        inp = nn.Input([None, 4])
        model = nn.Model(inp, nn.Dense(2)(nn.Dense(8, act="relu")(inp)))
        model(x[:1])
        history = strata.train.fit(model, strata.optim.Adam(model, lr=0.02), x, y, epochs=3, verbose=0)
        results[tag] = history["accuracy"][-1]

    threads = [threading.Thread(target=train, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [0, 1] and min(results.values()) > 0.8


class Wrapped(nn.Module):
    """A shared layer, at a depth of its own in each model, then a layer of the model's own."""

    def __init__(self, shared, scale, depth):
        super().__init__()
        self.inner = shared if depth == 0 else Wrapped(shared, 1.0, depth - 1)
        self.own = nn.Dense(4, w_init={"name": "constant", "value": scale})

    def forward(self, x):
        return self.own(self.inner(x))


def test_a_fresh_layer_shared_by_two_models_run_from_two_threads():
    x = np.linspace(-1, 1, 32 * 256, dtype=np.float32).reshape(32, 256)

    def run_pair(threaded):
        # Unbuilt, so both threads reach its lazy build at once; deterministic weights.
        shared = nn.Dense(512, act="tanh", w_init={"name": "constant", "value": 0.01}, b_init="ones")
        models = [Wrapped(shared, 0.1, 0), Wrapped(shared, 0.2, 2)]
        outputs = [None, None]
        start = threading.Barrier(2)

        def run(i):
            if threaded:
                start.wait()
            outputs[i] = np.asarray(models[i](x)).copy()

        if threaded:
            threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        else:
            run(0)
            run(1)
        return outputs, len(shared.weights), [len(m.weights) for m in models]

    expected = run_pair(threaded=False)
    for _ in range(100):
        outputs, shared_weights, model_weights = run_pair(threaded=True)
        assert shared_weights == 2 and model_weights == expected[2] == [4, 8]  # built once, in both models
        for got, want in zip(outputs, expected[0]):
            np.testing.assert_array_equal(got, want)


def test_fit_progress_reaches_python_stdout(capsys):
    x, y = blobs(64, 6)
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(inp))
    model(x[:1])
    strata.train.fit(model, strata.optim.SGD(model, lr=0.1), x, y, epochs=2, batch_size=16, verbose=1)
    out = capsys.readouterr().out  # what a notebook shows: not a terminal, so lines
    assert "epoch 1/2" in out and "epoch 2/2" in out and "loss" in out


def test_learning_rate_schedules_in_loops_and_in_fit():
    x, y = blobs(64, 7)
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(inp))
    model(x[:1])
    opt = strata.optim.SGD(model, lr=0.1)
    schedule = strata.optim.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(5):
        lrs.append(opt.lr)
        schedule.step()
    assert lrs == pytest.approx([0.1, 0.1, 0.05, 0.05, 0.025])
    opt2 = strata.optim.SGD(model, lr=0.2)
    cosine = strata.optim.CosineAnnealingLR(opt2, t_max=4)
    history = strata.train.fit(model, opt2, x, y, epochs=4, callbacks=[cosine], verbose=0)
    import math
    assert history["lr"] == pytest.approx([0.1 * (1 + math.cos(math.pi * e / 4)) for e in range(4)])


def test_lambda_layers_run_python_functions_and_save_by_registered_name(tmp_path):
    x = nn.Input([None, 3])
    y = nn.Lambda(function=lambda t: t * 2 + 1)(nn.Dense(3, name="d")(x))
    model = nn.Model(x, y)
    data = np.ones((2, 3), np.float32)
    dense_out = np.asarray(model.get_layer("d")(data))
    np.testing.assert_allclose(np.asarray(model(data)), dense_out * 2 + 1, rtol=1e-6)
    nn.register_function("plus_one", lambda t: t + 1)  # a registered name survives a model file
    x2 = nn.Input([None, 3])
    saved = nn.Model(x2, nn.Lambda("plus_one")(x2))
    saved.save(str(tmp_path / "m.safetensors"))
    np.testing.assert_allclose(np.asarray(nn.Model.load(str(tmp_path / "m.safetensors"))(data)), data + 1)


def test_keras3_weight_files_load_by_class_and_save_for_keras3(tmp_path):
    # Committed by tests/interop/fixtures/make_keras3_fixtures.py with keras 3.12: Dense(8, relu) -> Dense(3).
    fixtures = pathlib.Path(__file__).resolve().parents[2] / "tests" / "interop" / "fixtures" / "keras3"
    expected = np.load(fixtures / "keras3_mlp_io.npz")

    def mlp():
        x = nn.Input([None, 4])
        return nn.Model(x, nn.Dense(3)(nn.Dense(8, act="relu")(x)))

    model = mlp()
    for file in ("keras3_mlp.weights.h5", "keras3_mlp.keras"):
        assert nn.load_library_weights(model, str(fixtures / file), "keras") == 4
        np.testing.assert_allclose(np.asarray(model(expected["x"])), expected["y"], atol=1e-4)
    path = str(tmp_path / "for_keras3.weights.h5")
    nn.save_keras3_weights(model, path)
    fresh = mlp()
    assert not np.allclose(np.asarray(fresh(expected["x"])), expected["y"], atol=1e-4)
    nn.load_library_weights(fresh, path, "keras")
    np.testing.assert_allclose(np.asarray(fresh(expected["x"])), expected["y"], atol=1e-4)
    with pytest.raises(strata.Error, match="by name"):
        nn.load_library_weights(fresh, path, "keras", by_name=False)


def test_whole_keras3_model_predicts_as_keras():
    # Keras 3.12's two-input model (image, int32 ids), saved whole by make_keras3_fixtures.py.
    fixtures = pathlib.Path(__file__).resolve().parents[2] / "tests" / "interop" / "fixtures" / "keras3"
    expected = np.load(fixtures / "keras3_two_inputs_io.npz")
    model = nn.load_keras_model(str(fixtures / "keras3_two_inputs.keras"))
    out = model([expected["x0"], expected["x1"].astype(np.int64)])
    np.testing.assert_allclose(np.asarray(out), expected["y"], atol=1e-4)
    with pytest.raises(strata.Error, match="no architecture"):
        nn.load_keras_model(str(fixtures / "keras3_mlp.weights.h5"))
