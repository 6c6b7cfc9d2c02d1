"""tl.prepro: TensorLayer's image preprocessing names over Strata's (strata.data.image) on HWC
NumPy images; results are NumPy arrays, as TensorLayer's are."""
import numpy as np

from strata.data import image as _image


def _np(t):
    return np.asarray(t)


def flip_axis(x, axis=1, is_random=False):
    """axis 1: left-right, axis 0: up-down (of an HWC image); is_random: half the time."""
    if is_random and np.random.uniform(-1, 1) <= 0:
        return x
    if axis == 1:
        return _np(_image.flip_left_right(x))
    if axis == 0:
        return _np(_image.flip_up_down(x))
    raise ValueError(f"tl.prepro.flip_axis: axis must be 0 or 1 for an HWC image, got {axis}")


def crop(x, wrg, hrg, is_random=False, row_index=0, col_index=1):
    """A hrg x wrg window: in the middle, or at a random place."""
    return _np(_image.random_crop(x, hrg, wrg) if is_random else _image.central_crop(x, hrg, wrg))


def imresize(x, size=(100, 100), interp="bicubic", mode=None):
    return _np(_image.resize(x, size[0], size[1], interp if interp in ("nearest", "bilinear", "bicubic") else "bilinear"))


def rotation(x, rg=20, is_random=False, fill_mode="constant", cval=0.0, order=1):
    angle = np.random.uniform(-rg, rg) if is_random else rg
    return _np(_image.affine(x, rotation=angle, fill=cval, interpolation="nearest" if order == 0 else "bilinear"))


def shift(x, wrg=0.1, hrg=0.1, is_random=False, fill_mode="constant", cval=0.0, order=1):
    """Shifted by fractions of the width and height."""
    h, w = x.shape[0], x.shape[1]
    tx, ty = (np.random.uniform(-wrg, wrg), np.random.uniform(-hrg, hrg)) if is_random else (wrg, hrg)
    return _np(_image.affine(x, shift_x=tx * w, shift_y=ty * h, fill=cval,
                             interpolation="nearest" if order == 0 else "bilinear"))


def zoom(x, zoom_range=(0.9, 1.1), is_random=False, fill_mode="constant", cval=0.0, order=1):
    z = np.random.uniform(*zoom_range) if is_random else zoom_range[0]
    return _np(_image.affine(x, zoom=z, fill=cval, interpolation="nearest" if order == 0 else "bilinear"))


def brightness(x, gamma=1, gain=1, is_random=False):
    """TensorLayer's gamma adjustment of [0, 1] images: gain * x ** gamma."""
    if is_random:
        gamma = np.random.uniform(1 - gamma, 1 + gamma)
    return gain * np.power(x, gamma)


def samplewise_norm(x, rescale=None, samplewise_center=True, samplewise_std_normalization=True, channel_index=2,
                    epsilon=1e-7):
    if rescale:
        x = x * rescale
    return _np(_image.samplewise_normalize(np.ascontiguousarray(x, np.float32)))


def threading_data(data=None, fn=None, thread_count=None, **kwargs):
    """fn applied to each item (TensorLayer runs threads; the C++ functions release the GIL)."""
    return np.asarray([fn(item, **kwargs) for item in data])
