"""strata.tl: TensorLayer 2.2.5's names build the Strata layers they should, static and dynamic
models as TensorLayer writes them, its iterate/cost/files helpers, and the real data."""
import numpy as np
import pytest

import strata
import strata.tl as tl
from strata.tl.layers import BatchNorm, Conv2d, Dense, Dropout, Flatten, Input, MaxPool2d
from strata.tl.models import Model


def config(layer):
    return layer.get_config()["config"]


def test_arguments_map_to_strata_options():
    assert config(Dense(n_units=7, act="relu", in_channels=3)) == {"units": 7, "act": "relu", "in_units": 3,
                                                                    "use_bias": True}
    assert config(Dropout(keep=0.8))["p"] == pytest.approx(0.2)
    c = config(Conv2d(16, (5, 5), (2, 2), padding="SAME", act="relu"))
    assert c["n_filter"] == 16 and c["filter_size"] == [5, 5]
    assert c["options"]["stride"] == [2, 2] and c["options"]["padding"] == "same"
    p = config(MaxPool2d((2, 2), (2, 2), padding="VALID"))
    assert p["filter_size"] == [2, 2] and p["options"] == {"stride": [2, 2], "padding": "valid"}
    assert config(BatchNorm(decay=0.8))["decay"] == pytest.approx(0.8)
    # TensorLayer's shape has the batch axis first; only that one goes.
    assert config(tl.layers.Reshape([-1, 4, -1]))["shape"] == [4, -1]
    assert config(tl.layers.Reshape([None, 784]))["shape"] == [784]
    # TensorLayer's initializers: its defaults (truncated normal, stddev 0.05 for Dense) and given ones.
    d = Dense(n_units=400, in_channels=300)
    d(np.ones((1, 300), np.float32))
    w = np.asarray(d.named_weights()[d.name + "/W"])
    assert np.abs(w).max() <= 0.1 + 1e-6 and 0.035 < w.std() < 0.05  # truncated at 2 stddev
    c = Dense(n_units=2, W_init=tl.initializers.constant(0.5), b_init=None)
    np.testing.assert_allclose(np.asarray(c(np.ones((1, 3), np.float32))), [[1.5, 1.5]])
    assert c.get_config()["config"]["use_bias"] is False
    with pytest.raises(strata.OptionError, match="unknown initializer 'nope'"):
        Dense(n_units=3, W_init={"name": "nope"})
    with pytest.raises(ValueError, match="keep"):
        Dropout(keep=0.0)


def test_static_and_dynamic_models_as_tensorlayer_writes_them():
    ni = Input([None, 6])
    nn = Dense(n_units=5, act="relu")(ni)
    static = Model(inputs=ni, outputs=Dense(n_units=2)(nn), name="static")
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    static.eval()
    assert np.asarray(static(x)).shape == (3, 2)

    class Custom(Model):
        def __init__(self):
            super(Custom, self).__init__()
            self.dense1 = Dense(n_units=4, act="relu", in_channels=6)
            self.dense2 = Dense(n_units=2, in_channels=4)

        def forward(self, x, foo=None):
            out = self.dense2(self.dense1(x))
            return strata.relu(out) if foo is not None else out

    net = Custom()
    plain, relued = np.asarray(net(x)), np.asarray(net(x, foo=1))
    np.testing.assert_allclose(relued, np.maximum(plain, 0))
    assert len(net.trainable_weights) == 4


def test_minibatches_and_costs():
    x, y = np.arange(10).reshape(10, 1), np.arange(10)
    batches = list(tl.iterate.minibatches(x, y, 4, shuffle=False))
    assert [len(b[0]) for b in batches] == [4, 4]  # the short batch is dropped, as TensorLayer does
    assert [len(b[0]) for b in tl.iterate.minibatches(x, y, 4, allow_dynamic_batch_size=True)] == [4, 4, 2]
    logits = np.array([[2.0, 0.0], [0.0, 3.0]], np.float32)
    labels = np.array([0, 1], np.int64)
    expected = np.mean([np.log(1 + np.exp(-2.0)), np.log(1 + np.exp(-3.0))])
    assert tl.cost.cross_entropy(logits, labels).item() == pytest.approx(expected, rel=1e-5)
    assert tl.cost.mean_squared_error(logits, np.zeros_like(logits)).item() == pytest.approx((4 + 9) / 2)


def test_weight_files_round_trip_in_tensorlayer_layouts(tmp_path):
    def model():
        ni = Input([None, 4])
        # Named: TensorLayer's npz_dict and hdf5 files are matched by layer name.
        return Model(inputs=ni, outputs=Dense(n_units=2, name="out")(Dense(n_units=3, act="relu", name="hidden")(ni)))

    a, b = model(), model()
    x = np.ones((1, 4), np.float32)
    a(x), b(x)
    tl.files.save_npz(network=a, name=str(tmp_path / "list.npz"))  # TensorLayer's list, in order
    b.set_weights([np.zeros_like(w) for w in b.get_weights()])
    assert tl.files.load_and_assign_npz(name=str(tmp_path / "list.npz"), network=b) == 4
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(wa, wb)
    for save, load, name in [(tl.files.save_npz_dict, tl.files.load_and_assign_npz_dict, "w.npz"),
                             (tl.files.save_weights_to_hdf5, tl.files.load_hdf5_to_weights_in_order, "w.h5")]:
        path = str(tmp_path / name)
        save(network=a, name=path) if save is tl.files.save_npz_dict else save(path, a)
        b.set_weights([np.zeros_like(w) for w in b.get_weights()])
        load(path, b) if load is not tl.files.load_and_assign_npz_dict else load(name=path, network=b)
        for wa, wb in zip(a.get_weights(), b.get_weights()):
            np.testing.assert_array_equal(wa, wb)


def test_fashion_mnist_from_debian():
    x_train, y_train, x_val, y_val, x_test, y_test = tl.files.load_fashion_mnist_dataset(shape=(-1, 784))
    assert x_train.shape == (50000, 784) and x_val.shape == (10000, 784) and x_test.shape == (10000, 784)
    assert x_train.dtype == np.float32 and 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert sorted(set(y_test.tolist())) == list(range(10))


def test_prepro_matches_numpy_where_exact():
    rng = np.random.default_rng(3)
    img = rng.random((6, 8, 3), dtype=np.float32)
    np.testing.assert_array_equal(tl.prepro.flip_axis(img, axis=1), img[:, ::-1])
    np.testing.assert_array_equal(tl.prepro.flip_axis(img, axis=0), img[::-1])
    np.testing.assert_array_equal(tl.prepro.crop(img, wrg=4, hrg=2), img[2:4, 2:6])
    assert tl.prepro.crop(img, wrg=4, hrg=2, is_random=True).shape == (2, 4, 3)
    np.testing.assert_allclose(tl.prepro.imresize(img, (12, 16), interp="nearest")[::2, ::2], img)
    square = rng.random((5, 5, 1), dtype=np.float32)
    rotated = tl.prepro.rotation(square, rg=90, order=0)  # 90 degrees counter-clockwise, exact on pixels
    np.testing.assert_allclose(rotated[..., 0], np.rot90(square[..., 0]), atol=1e-6)
    normed = tl.prepro.samplewise_norm(img)
    assert abs(normed.mean()) < 1e-5 and abs(normed.std() - 1) < 1e-3


def test_more_tensorlayer_layers_build_a_model():
    from strata.tl import layers as L

    ni = L.Input([None, 8, 8, 3])
    h = L.DepthwiseConv2d((3, 3), act="relu")(ni)
    h = L.ZeroPad2d(1)(L.LocalResponseNorm(depth_radius=2)(h))  # 10 x 10
    h = L.UpSampling2d((2, 2), method="nearest")(L.LayerNorm()(h))  # 20 x 20
    h = L.DeConv2d(4, (3, 3), strides=(1, 1))(h)
    g = L.Elementwise("maximum")([L.GlobalMaxPool2d()(h), L.GlobalMeanPool2d()(h)])
    ids = L.Input([None, 5], dtype="int64")
    e = L.Flatten()(L.Embedding(10, 3)(ids))
    net = Model(inputs=[ni, ids], outputs=[g, e])
    x = np.random.default_rng(1).random((2, 8, 8, 3), dtype=np.float32)
    out_g, out_e = net([x, np.arange(10, dtype=np.int64).reshape(2, 5)])
    assert np.asarray(out_g).shape == (2, 4) and np.asarray(out_e).shape == (2, 15)
    signal = L.Input([None, 16, 2])
    s = L.MaxPool1d(2, 2)(L.Conv1d(4, 3, act="relu")(signal))
    s = L.GlobalMeanPool1d()(L.MeanPool1d(2, 2)(s))
    assert np.asarray(Model(inputs=signal, outputs=s)(np.ones((3, 16, 2), np.float32))).shape == (3, 4)
    with pytest.raises(ValueError, match="combine_fn"):
        L.Elementwise(lambda a, b: a)
