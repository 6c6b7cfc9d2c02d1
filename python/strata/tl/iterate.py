"""tl.iterate.minibatches: (inputs, targets) in batches, optionally shuffled, as TensorLayer does."""
import numpy as np


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
