"""tl.iterate.minibatches: (inputs, targets) in batches, optionally shuffled, as TensorLayer does;
ptb_iterator: a language model's batches of word ids (strata.data.ptb_iterator)."""
import numpy as np

from strata import data as _data
from strata._strata import tl_extras as _extras


def minibatches(inputs=None, targets=None, batch_size=None, allow_dynamic_batch_size=False, shuffle=False):
    if len(inputs) != len(targets):
        raise AssertionError("The length of inputs and targets should be equal")
    indices = np.arange(len(inputs))
    if shuffle:
        np.random.shuffle(indices)
    for start in range(0, len(inputs), batch_size):
        end = start + batch_size
        if end > len(inputs):
            if not allow_dynamic_batch_size:
                break
            end = len(inputs)
        excerpt = indices[start:end]
        yield inputs[excerpt], targets[excerpt]


def ptb_iterator(raw_data, batch_size, num_steps):
    """Yields (x, y) int64 arrays [batch_size, num_steps], y the next words of x, as TensorLayer's."""
    for x, y in _data.ptb_iterator(np.asarray(raw_data, dtype=np.int64).tolist(), batch_size, num_steps):
        yield np.asarray(x), np.asarray(y)


def seq_minibatches2(inputs, targets, batch_size, num_steps):
    """Yields (x [batch_size, num_steps, ...], y float64 [batch_size, num_steps]) as TensorLayer's."""
    for x, y in _extras.seq_minibatches2(np.ascontiguousarray(inputs), np.ascontiguousarray(targets), batch_size, num_steps):
        yield np.asarray(x), np.asarray(y)
