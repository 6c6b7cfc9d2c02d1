"""The hub and the data pipeline from Python: versions saved and loaded ready to run, the best
version found by a metric, runs' metrics; datasets and streams from NumPy, functions and
generators through map/shuffle/batch/prefetch, and fit on them."""
import threading

import numpy as np
import pytest

import strata
from strata import nn
from strata.data import Dataset, Stream


def small_model(seed):
    strata.manual_seed(seed)
    x = nn.Input([None, 3])
    return nn.Model(x, nn.Dense(2)(nn.Dense(4, act="tanh")(x)), name="small")


def test_hub_versions_metrics_and_runs(tmp_path):
    hub = strata.hub.Hub.open(str(tmp_path / "hub.db"))
    data = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    outputs = {}
    for seed, accuracy in [(1, 0.7), (2, 0.9), (3, 0.8)]:
        model = small_model(seed)
        outputs[seed] = np.asarray(model(data)).copy()
        version = hub.save_model("small", model, metrics={"accuracy": accuracy}, tags=["test"])
    assert version == 3
    loaded, info = hub.load_model("small", 1)
    assert info["version"] == 1 and info["metrics"] == {"accuracy": 0.7}
    np.testing.assert_array_equal(np.asarray(loaded(data)), outputs[1])
    best, info = hub.find_top_model("small", "accuracy")
    assert info["version"] == 2
    np.testing.assert_array_equal(np.asarray(best(data)), outputs[2])
    assert hub.find_top_model("small", "no_such_metric") is None
    assert [m["version"] for m in hub.list_models("small")] == [3, 2, 1] or len(hub.list_models("small")) == 3
    run = hub.create_run("training", {"lr": 0.1})
    for step in range(3):
        run.log(step, "train", {"loss": 1.0 / (step + 1)})
    run.finish()
    assert hub.metric_history(run.id, "loss") == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    with pytest.raises(strata.Error, match="small"):
        hub.load_model("small", 99)


def test_datasets_from_numpy_and_functions():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int64)
    ds = Dataset.from_tensors(x, y)
    assert len(ds) == 10
    ex_x, ex_y = ds[3]
    assert np.asarray(ex_x).tolist() == [6.0, 7.0] and ex_y.item() == 3
    doubled = ds.map(lambda a, b: (a * 2, b)).filter(lambda a, b: b.item() % 2 == 0)
    assert [b.item() for _, b in doubled] == [0, 2, 4, 6, 8]
    batches = list(ds.shuffle(1).batch(4))
    assert [len(b[1]) for b in batches] == [4, 4, 2]
    assert sorted(np.concatenate([np.asarray(b[1]) for b in batches]).tolist()) == list(range(10))
    squares = Dataset.from_function(5, lambda i: (np.array([i * i], np.float32),))
    assert [e[0].item() for e in squares] == [0, 1, 4, 9, 16]


def test_streams_from_generators_with_a_python_map_in_a_prefetch_thread():
    def generate():
        for i in range(50):
            yield np.full((2,), i, np.float32), np.int64(i % 3)

    stream = Stream.from_generator(generate).map(lambda a, b: (a + 1, b), threads=2).batch(8).prefetch(2)
    seen = [np.asarray(b[0])[:, 0].tolist() for b in stream]
    assert sum(len(s) for s in seen) == 50
    assert sorted(v for s in seen for v in s) == [float(i + 1) for i in range(50)]
    assert len(list(stream)) == 7  # read again from the start

    def failing():
        yield (np.zeros(1, np.float32),)
        raise ValueError("bad record 2")

    with pytest.raises(ValueError, match="bad record 2"):
        list(Stream.from_generator(failing))


def test_fit_on_a_dataset_and_a_stream():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    x = (rng.standard_normal((400, 4)) + 2.0 * y[:, None]).astype(np.float32)
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(nn.Dense(8, act="relu")(inp)))
    model(x[:1])
    ds = Dataset.from_tensors(x, y.astype(np.int64))
    # fit batches the examples itself (batch_size), as Keras does with a dataset of examples.
    history = strata.train.fit(model, strata.optim.Adam(model, lr=0.05), ds, epochs=3, batch_size=32, verbose=0)
    assert history["accuracy"][-1] > 0.9
    stream = Stream.from_generator(lambda: ((x[i], np.int64(y[i])) for i in range(400)))
    logs = strata.train.evaluate(model, stream)
    assert logs["accuracy"] > 0.9
    assert np.asarray(strata.train.predict(model, ds, batch_size=64)).shape == (400, 2)


def test_the_librarys_callbacks_from_python(tmp_path):
    import os

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 256).astype(np.int64)
    x = (rng.standard_normal((256, 4)) + 2.0 * y[:, None]).astype(np.float32)
    hub = strata.hub.Hub.open(str(tmp_path / "hub.db"))
    inp = nn.Input([None, 4])
    model = nn.Model(inp, nn.Dense(2)(nn.Dense(8, act="relu")(inp)), name="clf")
    model(x[:1])
    logger = strata.train.HubLogger(hub, "clf-run", {"lr": 0.05}, every_n_steps=0)
    checkpoint = strata.train.ModelCheckpoint(hub, "clf", monitor="val_accuracy", include_optimizer=False)
    csv = str(tmp_path / "log.csv")
    history = strata.train.fit(model, strata.optim.Adam(model, lr=0.05), x, y, epochs=4, validation_split=0.25,
                               callbacks=[logger, checkpoint, strata.train.CSVLogger(csv),
                                          strata.train.TensorBoardLogger(str(tmp_path / "tb"))], verbose=0)
    assert [v for _, v in hub.metric_history(logger.run_id, "loss")] == pytest.approx(history["loss"])
    best, info = hub.load_model("clf")  # the checkpoint's last (best) version, ready to run
    assert info["metrics"]["val_accuracy"] == pytest.approx(max(history["val_accuracy"]))
    with open(csv) as f:
        rows = f.read().splitlines()
    assert rows[0].split(",")[0] == "epoch" and len(rows) == 5
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path / "tb" / "train"))  # Keras's layout

    # EarlyStopping: with lr 0 nothing improves, so training stops after patience + 1 epochs.
    stopped = strata.train.fit(model, strata.optim.SGD(model, lr=0.0), x, y, epochs=20, validation_split=0.25,
                               callbacks=[strata.train.EarlyStopping(monitor="val_loss", patience=2)], verbose=0)
    assert len(stopped["loss"]) == 3


def test_loaders_read_local_files(tmp_path):
    import zlib, struct

    train_x, train_y, test_x, test_y = strata.data.load_fashion_mnist()  # Debian's package
    assert train_x.shape == (60000, 28, 28) and train_x.dtype == "uint8" and test_y.shape == (10000,)
    # An image folder of two classes, written as PNG files here.
    def png(path, value):
        raw = b"".join(b"\x00" + bytes([value] * 3 * 4) for _ in range(4))  # 4x4 RGB rows
        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    for cls, value in (("cat", 10), ("dog", 200)):
        (tmp_path / cls).mkdir()
        png(str(tmp_path / cls / "a.png"), value)
    dataset, classes = strata.data.image_folder(str(tmp_path))
    assert classes == ["cat", "dog"] and len(dataset) == 2
    image, label = dataset[1]
    assert image.shape == (4, 4, 3) and np.asarray(image).max() == 200 and label.item() == 1
    np.save(tmp_path / "a.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    assert strata.data.read_npy(str(tmp_path / "a.npy")).tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(strata.Error, match="cifar"):
        strata.data.load_cifar10(str(tmp_path))
