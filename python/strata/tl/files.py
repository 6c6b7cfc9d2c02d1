"""tl.files: TensorLayer 2's weight files, read and written in its own layouts, and its data
sets from local files."""
from strata import data as _data
from strata import nn as _nn


def save_npz(save_list=None, name="model.npz", network=None):
    """tl.files.save_npz(network.all_weights, name): pass the network itself as `network` or `save_list`."""
    model = network if network is not None else save_list
    _nn.save_tl2_npz(model, name)


def load_and_assign_npz(name=None, network=None):
    """tl.files.load_and_assign_npz: save_npz's list of weights into `network`, in order."""
    return _nn.load_tl2_npz(network, name)


def save_npz_dict(save_list=None, name="model.npz", network=None):
    _nn.save_tl2_npz_dict(network if network is not None else save_list, name)


def load_and_assign_npz_dict(name="model.npz", network=None, skip=False):
    return _nn.load_library_weights(network, name, "tensorlayer", by_name=True)


def save_weights_to_hdf5(filepath, network):
    _nn.save_tl2_hdf5(network, filepath)


def load_hdf5_to_weights(filepath, network, skip=False):
    return _nn.load_library_weights(network, filepath, "tensorlayer", by_name=True)


def load_hdf5_to_weights_in_order(filepath, network, skip=False):
    return _nn.load_library_weights(network, filepath, "tensorlayer", by_name=False)


def _read_idx(path):
    """An IDX file (gzip-compressed or not) as a NumPy array, its sizes checked against its bytes."""
    import gzip

    import numpy as np

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 8:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    ndim = data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: truncated header")
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    count = int(np.prod(shape, dtype=np.int64))
    if len(data) - header != count:
        raise ValueError(f"{path}: {len(data) - header} bytes of data for shape {shape}")
    return np.frombuffer(data, np.uint8, offset=header).reshape(shape)


def load_fashion_mnist_dataset(shape=(-1, 784), path="/usr/share/datasets/fashion-mnist"):
    """tl.files.load_fashion_mnist_dataset: X_train, y_train, X_val, y_val, X_test, y_test as
    TensorLayer returns them (float32 in [0, 1], int64 labels, the last 10,000 training images as
    validation), read from Debian's dataset-fashion-mnist instead of downloaded."""
    import os

    import numpy as np

    def images(name):
        return (_read_idx(os.path.join(path, name)).astype(np.float32) / 255.0).reshape(shape)

    def labels(name):
        return _read_idx(os.path.join(path, name)).astype(np.int64)

    x_train, y_train = images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz")
    x_test, y_test = images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz")
    return x_train[:-10000], y_train[:-10000], x_train[-10000:], y_train[-10000:], x_test, y_test


def load_ptb_dataset(path="data"):
    """tl.files.load_ptb_dataset: (train_data, valid_data, test_data, vocab_size), the word ids as
    lists, as TensorLayer returns them (ids by count, the vocabulary from the training words), read
    by strata.data.load_ptb from local files instead of downloaded: `path` holds ptb.train.txt,
    ptb.valid.txt and ptb.test.txt, or TensorLayer's layout path/ptb/simple-examples/data does."""
    import os

    import numpy as np

    tl_layout = os.path.join(path, "ptb", "simple-examples", "data")
    train, valid, test, vocabulary = _data.load_ptb(tl_layout if os.path.isdir(tl_layout) else path)
    return np.asarray(train).tolist(), np.asarray(valid).tolist(), np.asarray(test).tolist(), len(vocabulary)
