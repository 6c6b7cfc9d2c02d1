"""strata.tl.layers.RNN, BiRNN and Lambda: TensorLayer 2's return conventions, the values of the
Strata layers they run, and models using them that train."""
import numpy as np
import pytest

import strata
import strata.tl as tl
from strata import nn


def sequences(batch=3, time=5, features=4):
    return np.random.RandomState(0).randn(batch, time, features).astype(np.float32)


def same_weights(layer, like, x):
    """`layer` built and given `like`'s weights."""
    layer(x)
    layer.set_weights(like.get_weights())
    return layer


def test_rnn_returns_what_tensorlayer_returns_computed_by_the_strata_layer():
    x = sequences()
    rnn = tl.layers.RNN(cell=tl.layers.LSTMCell(units=6))
    out, state = rnn(x)  # return_last_state is TensorLayer's default
    assert out.shape == (3, 5, 6) and [s.shape for s in state] == [(3, 6), (3, 6)]  # [h, c]
    assert len(rnn.trainable_weights) == 3
    ref = np.asarray(same_weights(nn.LSTM(6), rnn.layer, x)(x))
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(state[0]), ref[:, -1], rtol=1e-5, atol=1e-6)

    flat = tl.layers.RNN(cell=tl.layers.LSTMCell(6), return_seq_2d=True, return_last_state=False)
    same_weights(flat.layer, rnn.layer, x)
    y = flat(x)
    assert isinstance(y, strata.Tensor) and y.shape == (15, 6)
    np.testing.assert_allclose(np.asarray(y), ref.reshape(15, 6), rtol=1e-5, atol=1e-6)

    last = tl.layers.RNN(cell=tl.layers.LSTMCell(6), return_last_output=True, return_last_state=False)
    same_weights(last.layer, rnn.layer, x)
    np.testing.assert_allclose(np.asarray(last(x)), ref[:, -1], rtol=1e-5, atol=1e-6)
    # seq_length: each sequence's last valid step.
    at = np.asarray(last(x, seq_length=np.array([5, 3, 1])))
    np.testing.assert_allclose(at, ref[[0, 1, 2], [4, 2, 0]], rtol=1e-5, atol=1e-6)


def test_gru_and_simple_rnn_cells_and_initial_state():
    x = sequences()
    gru = tl.layers.RNN(cell=tl.layers.GRUCell(5))
    out, state = gru(x, initial_state=[np.ones((3, 5), np.float32)])
    assert out.shape == (3, 5, 5) and len(state) == 1
    ref = same_weights(nn.GRU(5), gru.layer, x)
    from_ones = nn.run_recurrent(ref, x, [np.ones((3, 5), np.float32)])[0]
    np.testing.assert_allclose(np.asarray(out), np.asarray(from_ones), rtol=1e-5, atol=1e-6)
    assert not np.allclose(np.asarray(out), np.asarray(ref(x)))  # the initial state was used

    simple = tl.layers.RNN(cell=tl.layers.SimpleRNNCell(4, activation="relu"), return_last_state=False)
    y = np.asarray(simple(x))
    assert y.shape == (3, 5, 4) and y.min() >= 0
    ref = same_weights(nn.SimpleRNN(4, act="relu"), simple.layer, x)
    np.testing.assert_allclose(y, np.asarray(ref(x)), rtol=1e-5, atol=1e-6)


def test_birnn_concatenates_forward_and_reversed_time_backward_outputs():
    x = sequences(2, 5, 3)
    bi = tl.layers.BiRNN(fw_cell=tl.layers.LSTMCell(4), bw_cell=tl.layers.GRUCell(3), return_last_state=True)
    out, fw_state, bw_state = bi(x)
    assert out.shape == (2, 5, 7) and len(fw_state) == 2 and len(bw_state) == 1
    # By hand: the forward layer on x, and a plain (forwards) GRU with the same weights on x
    # reversed in time, its outputs reversed back.
    fw = np.asarray(same_weights(nn.LSTM(4), bi.fw, x)(x))
    reversed_x = np.ascontiguousarray(x[:, ::-1])
    bw = np.asarray(same_weights(nn.GRU(3), bi.bw, x)(reversed_x))[:, ::-1]
    np.testing.assert_allclose(np.asarray(out), np.concatenate([fw, bw], -1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(fw_state[0]), fw[:, -1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(bw_state[0]), bw[:, 0], rtol=1e-5, atol=1e-6)

    flat = tl.layers.BiRNN(tl.layers.LSTMCell(4), tl.layers.GRUCell(3), return_seq_2d=True)
    y = flat(x)  # return_last_state=False, TensorLayer's default for BiRNN
    assert isinstance(y, strata.Tensor) and y.shape == (10, 7)


def test_recurrent_layers_in_a_static_model():
    ni = tl.layers.Input([None, 5, 4])
    h = tl.layers.RNN(cell=tl.layers.GRUCell(6), return_last_output=True, return_last_state=False)(ni)
    model = tl.models.Model(inputs=ni, outputs=h)
    assert model(sequences()).shape == (3, 6)
    seq = tl.layers.BiRNN(tl.layers.LSTMCell(3), tl.layers.LSTMCell(2), return_seq_2d=True)(ni)
    assert seq.shape == [-1, 5]
    assert tl.models.Model(inputs=ni, outputs=seq)(sequences()).shape == (15, 5)
    with pytest.raises(ValueError, match="return_last_state=False"):
        tl.layers.RNN(cell=tl.layers.GRUCell(6))(ni)


def test_bad_cells_and_inputs_are_refused():
    with pytest.raises(TypeError, match="LSTMCell, GRUCell or SimpleRNNCell"):
        tl.layers.RNN(cell=nn.LSTM(4))
    with pytest.raises(ValueError, match="units must be an int >= 1"):
        tl.layers.LSTMCell(0)
    with pytest.raises(ValueError, match=r"expected inputs \[batch, time, 3\]"):
        tl.layers.RNN(cell=tl.layers.LSTMCell(4), in_channels=3)(sequences())
    with pytest.raises(ValueError, match=r"\[batch, time, features\]"):
        tl.layers.BiRNN(tl.layers.LSTMCell(4), tl.layers.LSTMCell(4))(np.zeros((2, 3), np.float32))


def test_lambda_with_fn_args_and_fn_weights_trains_the_weights_fn_reads():
    double = tl.layers.Lambda(lambda x, k: x * k, fn_args={"k": 2.0})
    np.testing.assert_allclose(np.asarray(double(np.ones((2, 2), np.float32))), 2 * np.ones((2, 2)))

    scale = strata.tensor(np.ones(3, np.float32))
    layer = tl.layers.Lambda(lambda x: x * scale, fn_weights=[scale])
    x = np.random.RandomState(1).randn(16, 3).astype(np.float32)
    target = x * np.array([0.5, -1.0, 2.0], np.float32)
    layer(x)
    assert len(layer.trainable_weights) == 1
    opt = strata.optim.SGD(layer.trainable_weights, lr=0.3)
    losses = []
    for _ in range(100):
        loss = strata.mean((layer(x) - strata.tensor(target)) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.01 * losses[0]
    np.testing.assert_allclose(np.asarray(scale), [0.5, -1.0, 2.0], atol=0.05)  # fn's own tensor trained
    with pytest.raises(TypeError, match="fn_weights must be the strata tensors"):
        tl.layers.Lambda(lambda x: x, fn_weights=[np.ones(3)])


class Classifier(tl.models.Model):
    """Which half of a sequence's steps are positive: an RNN and a BiRNN, then Dense."""

    def __init__(self):
        super().__init__()
        self.rnn = tl.layers.RNN(cell=tl.layers.LSTMCell(8), return_last_state=False)
        self.bi = tl.layers.BiRNN(tl.layers.GRUCell(4), tl.layers.SimpleRNNCell(4), return_seq_2d=False)
        self.mean = tl.layers.Lambda(lambda h: strata.mean(h, 1))
        self.out = tl.layers.Dense(2)

    def forward(self, x):
        return self.out(self.mean(self.bi(self.rnn(x))))


def test_a_model_of_recurrent_layers_trains():
    rs = np.random.RandomState(2)
    x = rs.randn(64, 6, 2).astype(np.float32)
    y = (x[:, :3, 0].sum(1) > x[:, 3:, 0].sum(1)).astype(np.int64)
    model = Classifier()
    model(x)
    assert len(model.trainable_weights) == 3 + 3 + 3 + 2  # LSTM, GRU, SimpleRNN, Dense
    opt = strata.optim.Adam(model.trainable_weights, lr=0.02)
    losses = []
    for _ in range(15):
        loss = strata.cross_entropy(model(x), strata.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.8 * losses[0]
