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


# TensorLayer's data sets from files a user already has (docs/data.md, "TensorLayer's data sets
# from local files"): TensorLayer's layouts under `path`, nothing downloaded; a missing file is a
# strata.Error naming the path expected.


def _numpy(tensor):
    import numpy as np

    return np.asarray(tensor)


def load_cropped_svhn(path="data", include_extra=True):
    """tl.files.load_cropped_svhn: X_train, y_train, X_test, y_test; images float64 [N, 32, 32, 3]
    in [0, 1] and labels 0..9 (the files' 10 is the digit 0) from path/cropped_svhn/*_32x32.mat."""
    import os

    x_train, y_train, x_test, y_test = _data.load_svhn_cropped(os.path.join(path, "cropped_svhn"), include_extra)
    return (_numpy(x_train) / 255.0, _numpy(y_train), _numpy(x_test) / 255.0, _numpy(y_test))


def load_mpii_pose_dataset(path="data", is_16_pos_only=False):
    """tl.files.load_mpii_pose_dataset: img_train_list, ann_train_list, img_test_list, ann_test_list
    from path/mpii_human_pose (the RELEASE .mat and images/); each annotation a dict with
    filename, train, head_rect, is_visible and joint_pos as TensorLayer builds it."""
    import os

    return _data.load_mpii_pose(os.path.join(path, "mpii_human_pose"), is_16_pos_only)


def load_imdb_dataset(path="data", nb_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1,
                      oov_char=2, index_from=3):
    """tl.files.load_imdb_dataset: X_train, y_train, X_test, y_test from path/imdb/imdb.pkl,
    shuffled as NumPy's legacy generator does with `seed`, with TensorLayer's rules; X as NumPy
    object arrays of lists (TensorLayer's np.array of ragged lists), y as int64 arrays."""
    import os

    import numpy as np

    x_train, y_train, x_test, y_test = _data.load_imdb(os.path.join(path, "imdb"), nb_words or 0, skip_top, maxlen or 0,
                                                       test_split, seed, start_char, oov_char, index_from)

    def ragged(rows):
        out = np.empty(len(rows), dtype=object)
        out[:] = rows
        return out

    return ragged(x_train), np.asarray(y_train, np.int64), ragged(x_test), np.asarray(y_test, np.int64)


def load_matt_mahoney_text8_dataset(path="data"):
    """tl.files.load_matt_mahoney_text8_dataset: the words of path/mm_test8/text8.zip."""
    import os

    return _data.load_text8(os.path.join(path, "mm_test8"))


def load_nietzsche_dataset(path="data"):
    """tl.files.load_nietzsche_dataset: the text of path/nietzsche/nietzsche.txt."""
    import os

    return _data.load_nietzsche(os.path.join(path, "nietzsche"))


def load_wmt_en_fr_dataset(path="data"):
    """tl.files.load_wmt_en_fr_dataset: (train_path, dev_path) prefixes under path/wmt_en_fr, the
    gzipped training files unpacked beside them as TensorLayer does."""
    import os

    return _data.load_wmt_en_fr(os.path.join(path, "wmt_en_fr"))


def load_celebA_dataset(path="data"):
    """tl.files.load_celebA_dataset: the paths of path/celebA/*.jpg (sorted; TensorLayer's are in
    directory order). strata.data.load_celeba also reads list_attr_celeba.txt."""
    import os

    return _data.load_celeba(os.path.join(path, "celebA"))[0]


def _read_images(paths):
    return [_numpy(_data.read_image(p, 3)) for p in paths]


def load_flickr25k_dataset(tag="sky", path="data", n_threads=50, printable=False):
    """tl.files.load_flickr25k_dataset: the RGB images of path/flickr25k/mirflickr with a tag line
    equal to `tag` (every image when tag is None), in natural order."""
    import os

    return _read_images(_data.load_flickr25k(os.path.join(path, "flickr25k"), tag or ""))


def load_flickr1M_dataset(tag="sky", size=10, path="data", n_threads=50, printable=False):
    """tl.files.load_flickr1M_dataset: the RGB images of the first size * 10 folders of
    path/flickr1M (images0..images9, tags) with a tag line equal to `tag`."""
    import os

    return _read_images(_data.load_flickr1m(os.path.join(path, "flickr1M"), tag, size))


def load_cyclegan_dataset(filename="summer2winter_yosemite", path="data"):
    """tl.files.load_cyclegan_dataset: im_train_A, im_train_B, im_test_A, im_test_B, RGB images of
    path/cyclegan/<filename>/{trainA,trainB,testA,testB} (grey ones made three-channel)."""
    import os

    return tuple(_read_images(part) for part in _data.load_cyclegan(os.path.join(path, "cyclegan"), filename))


def read_mat(path):
    """A MATLAB level-5 .mat file as {name: value} (scipy.io.loadmat's role, no SciPy needed)."""
    return _data.read_mat(path)
