"""tl.layers.RNN and BiRNN over Strata's whole-sequence SimpleRNN, LSTM and GRU ([batch, time,
features], batch first as TensorLayer). TensorLayer's cells are Keras cells
(``tf.keras.layers.LSTMCell(units)``); here ``tl.layers.LSTMCell(units)``, ``GRUCell`` and
``SimpleRNNCell`` name the Strata layer to run and its units.

Called on tensors the layers return what TensorLayer's do; called on a static model's symbols they
add Strata layers to the graph, which has one output per layer, so there the final states
(return_last_state) are refused."""
import strata as _strata
from strata import nn as _nn


class _Cell:
    def __init__(self, units):
        if isinstance(units, bool) or not isinstance(units, int) or units < 1:
            raise ValueError(f"tl.layers.{type(self).__name__}: units must be an int >= 1, got {units!r}")
        self.units = units

    def _layer(self, name, reverse=False, return_sequences=True):
        return self._make(units=self.units, return_sequences=return_sequences, reverse=reverse, name=name)


class LSTMCell(_Cell):
    """Keras's LSTMCell(units): runs strata.nn.LSTM; its state is [h, c]."""
    _make = staticmethod(_nn.LSTM)


class GRUCell(_Cell):
    """Keras's GRUCell(units): runs strata.nn.GRU; its state is [h]."""
    _make = staticmethod(_nn.GRU)


class SimpleRNNCell(_Cell):
    """Keras's SimpleRNNCell(units, activation="tanh"): runs strata.nn.SimpleRNN; its state is [h]."""

    def __init__(self, units, activation="tanh"):
        super().__init__(units)
        self.activation = activation

    def _layer(self, name, reverse=False, return_sequences=True):
        return _nn.SimpleRNN(units=self.units, return_sequences=return_sequences, reverse=reverse,
                             act="" if self.activation is None else self.activation, name=name)


def _check_cell(owner, cell):
    if not isinstance(cell, _Cell):
        raise TypeError(f"tl.layers.{owner}: a cell must be tl.layers.LSTMCell, GRUCell or SimpleRNNCell, got {cell!r}")
    return cell


def _flat(y):
    """[batch, time, units] -> [batch * time, units] (return_seq_2d)."""
    return _strata.reshape(y, [-1, y.shape[-1]])


class _Recurrent:
    """What RNN and BiRNN share: their Strata layers' weights, and the input check."""

    def __init__(self, in_channels, name):
        self.in_channels = in_channels
        self.name = name or ""

    @property
    def all_weights(self):
        return [w for layer in self._layers for w in layer.weights]

    weights = all_weights

    @property
    def trainable_weights(self):
        return [w for layer in self._layers for w in layer.trainable_weights]

    def _check(self, inputs, owner):
        if isinstance(inputs, _nn.Symbol):
            shape = inputs.shape
        else:
            inputs = _strata.as_tensor(inputs)
            shape = inputs.shape
        if len(shape) != 3 or (self.in_channels is not None and shape[2] != self.in_channels):
            channels = "features" if self.in_channels is None else self.in_channels
            raise ValueError(f"tl.layers.{owner} '{self.name}': expected inputs [batch, time, {channels}], "
                             f"got shape {list(shape)}")
        return inputs

    def _static(self, owner, extras):
        if any(e is not None and e is not False for e in extras):
            raise ValueError(f"tl.layers.{owner} '{self.name}': a static model's layer has one output and no extra "
                             "arguments: use return_last_state=False (or call it in a dynamic model)")


class RNN(_Recurrent):
    """tl.layers.RNN(cell, return_last_output=False, return_seq_2d=False, return_last_state=True).

    Called on x [batch, time, features]: outputs [batch, time, units] ([batch * time, units] with
    return_seq_2d), or the last output [batch, units] with return_last_output (with seq_length, each
    sequence's last valid step); with return_last_state, (outputs, final state as a list: [h, c] for
    an LSTM, [h] otherwise). ``initial_state`` takes such a list.
    """

    def __init__(self, cell, return_last_output=False, return_seq_2d=False, return_last_state=True, in_channels=None,
                 name=None):
        super().__init__(in_channels, name)
        self.cell = _check_cell("RNN", cell)
        self.return_last_output, self.return_seq_2d = return_last_output, return_seq_2d
        self.return_last_state = return_last_state
        self.layer = cell._layer(self.name, return_sequences=not return_last_output)
        self._layers = [self.layer]

    def __call__(self, inputs, seq_length=None, initial_state=None, return_state=None):
        return_state = self.return_last_state if return_state is None else return_state
        inputs = self._check(inputs, "RNN")
        flat = self.return_seq_2d and not self.return_last_output
        if isinstance(inputs, _nn.Symbol):
            self._static("RNN", [seq_length, initial_state, return_state])
            y = self.layer(inputs)
            return _nn.Lambda(function=_flat)(y) if flat else y
        outputs, state = _nn.run_recurrent(self.layer, inputs, initial_state, seq_length)
        outputs = _flat(outputs) if flat else outputs
        return (outputs, state) if return_state else outputs


class BiRNN(_Recurrent):
    """tl.layers.BiRNN(fw_cell, bw_cell, return_seq_2d=False, return_last_state=False).

    Runs fw_cell's layer forwards and bw_cell's backwards over x [batch, time, features] and
    concatenates their outputs, both aligned with the input's steps, on the last axis: [batch,
    time, fw units + bw units] ([batch * time, ...] with return_seq_2d); with return_last_state,
    (outputs, forward final state, backward final state).
    """

    def __init__(self, fw_cell, bw_cell, return_seq_2d=False, return_last_state=False, in_channels=None, name=None):
        super().__init__(in_channels, name)
        self.fw_cell, self.bw_cell = _check_cell("BiRNN", fw_cell), _check_cell("BiRNN", bw_cell)
        self.return_seq_2d, self.return_last_state = return_seq_2d, return_last_state
        self.fw = fw_cell._layer(self.name and self.name + "_fw")
        self.bw = bw_cell._layer(self.name and self.name + "_bw", reverse=True)
        self._layers = [self.fw, self.bw]

    def __call__(self, inputs, fw_initial_state=None, bw_initial_state=None, seq_length=None, return_state=None):
        return_state = self.return_last_state if return_state is None else return_state
        inputs = self._check(inputs, "BiRNN")
        if isinstance(inputs, _nn.Symbol):
            self._static("BiRNN", [fw_initial_state, bw_initial_state, seq_length, return_state])
            y = _nn.Concat(-1)([self.fw(inputs), self.bw(inputs)])
            return _nn.Lambda(function=_flat)(y) if self.return_seq_2d else y
        fw_out, fw_state = _nn.run_recurrent(self.fw, inputs, fw_initial_state, seq_length)
        bw_out, bw_state = _nn.run_recurrent(self.bw, inputs, bw_initial_state, seq_length)
        outputs = _strata.concat([fw_out, bw_out], -1)
        outputs = _flat(outputs) if self.return_seq_2d else outputs
        return (outputs, fw_state, bw_state) if return_state else outputs
