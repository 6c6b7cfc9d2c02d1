"""tl.prepro: TensorLayer's image preprocessing names over Strata's (strata.data.image) on HWC
NumPy images; results are NumPy arrays, as TensorLayer's are."""
import numpy as np

from strata._strata import prepro as _prepro
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
    """scikit-image's adjust_gamma, as TensorLayer calls it: uint8 through its rounded table, floats
    gain * x ** gamma."""
    if is_random:
        gamma = np.random.uniform(1 - gamma, 1 + gamma)
    return _np(_prepro.adjust_gamma(np.ascontiguousarray(x), gamma, gain))


def samplewise_norm(x, rescale=None, samplewise_center=True, samplewise_std_normalization=True, channel_index=2,
                    epsilon=1e-7):
    if rescale:
        x = x * rescale
    return _np(_image.samplewise_normalize(np.ascontiguousarray(x, np.float32)))


def threading_data(data=None, fn=None, thread_count=None, **kwargs):
    """fn applied to each item (TensorLayer runs threads; the C++ functions release the GIL)."""
    return np.asarray([fn(item, **kwargs) for item in data])


# TensorLayer's remaining prepro tools (strata/vision/prepro.hpp; docs/data.md, "TensorLayer's
# prepro tools"). Boxes are lists of 4 numbers, images NumPy arrays, as in TensorLayer.
def obj_box_coords_rescale(coords=None, shape=None):
    shape = shape or [100, 200]
    return [list(c) for c in _prepro.obj_box_coords_rescale(coords or [], shape[0], shape[1])]


def obj_box_coord_rescale(coord=None, shape=None):
    shape = shape or [100, 200]
    return list(_prepro.obj_box_coord_rescale(coord, shape[0], shape[1]))


def obj_box_coord_scale_to_pixelunit(coord, shape=None):
    shape = shape or [100, 100]
    return [int(v) for v in _prepro.obj_box_coord_scale_to_pixelunit(coord, shape[0], shape[1])]


def obj_box_coord_centroid_to_upleft_butright(coord, to_int=False):
    out = _prepro.obj_box_coord_centroid_to_upleft_butright(coord, to_int)
    return [int(v) for v in out] if to_int else list(out)


def obj_box_coord_upleft_butright_to_centroid(coord):
    return list(_prepro.obj_box_coord_upleft_butright_to_centroid(coord))


def obj_box_coord_centroid_to_upleft(coord):
    return list(_prepro.obj_box_coord_centroid_to_upleft(coord))


def obj_box_coord_upleft_to_centroid(coord):
    return list(_prepro.obj_box_coord_upleft_to_centroid(coord))


def parse_darknet_ann_str_to_list(annotations):
    """[[class, x, y, w, h], ...] from darknet's "class x y w h" lines (others skipped)."""
    classes, boxes = _prepro.parse_darknet_annotations(annotations)
    return [[c, *b] for c, b in zip(classes, boxes)]


def parse_darknet_ann_list_to_cls_box(annotations):
    return [a[0] for a in annotations], [list(a[1:]) for a in annotations]


def illumination(x, gamma=1., contrast=1., saturation=1., is_random=False):
    """Gamma, then Pillow's contrast and colour enhancers, on a uint8 image; with is_random the
    three are (min, max) ranges."""
    x = np.ascontiguousarray(x)
    if is_random:
        return _np(_prepro.random_illumination(x, gamma, contrast, saturation))
    return _np(_prepro.illumination(x, gamma, contrast, saturation))


def drop(x, keep=0.5):
    return _np(_prepro.drop(np.ascontiguousarray(x), keep))


def binary_dilation(x, radius=3):
    return _np(_prepro.binary_dilation(np.ascontiguousarray(x), radius))


def binary_erosion(x, radius=3):
    return _np(_prepro.binary_erosion(np.ascontiguousarray(x), radius))


def dilation(x, radius=3):
    return _np(_prepro.dilation(np.ascontiguousarray(x), radius))


def erosion(x, radius=3):
    return _np(_prepro.erosion(np.ascontiguousarray(x), radius))


def find_contours(x, level=0.8, fully_connected="low", positive_orientation="low"):
    """A list of (n, 2) arrays of (row, column) points, as skimage.measure.find_contours."""
    contours = _prepro.find_contours(np.ascontiguousarray(x, np.float64), level, fully_connected, positive_orientation)
    return [np.asarray(c, np.float64).reshape(-1, 2) for c in contours]


def pt2map(list_points=None, size=(100, 100), val=1):
    if list_points is None:
        raise ValueError("tl.prepro.pt2map: list_points is required")
    return _np(_prepro.pt2map([np.asarray(p, np.float64).reshape(-1, 2).tolist() for p in list_points],
                              size[0], size[1], val))


def swirl(x, center=None, strength=1, radius=100, rotation=0, cval=0, is_random=False, **_):
    """Bilinear (TensorLayer's order=1, mode="constant"); values keep their units."""
    if is_random:
        center = (np.random.uniform(0, x.shape[1]), np.random.uniform(0, x.shape[0]))
        strength, radius = np.random.uniform(0, strength), np.random.uniform(1e-10, radius)
        rotation = np.random.uniform(-rotation, rotation)
    return _np(_prepro.swirl(np.ascontiguousarray(x), center, strength, radius, rotation, cval))


def projective_transform_by_points(x, src, dst, cval=0.0, **_):
    """What was at src[i] lands at dst[i] ((x, y) points); bilinear, values keep their units
    (TensorLayer divides images above 1 by 255)."""
    return _np(_prepro.projective_transform_by_points(np.ascontiguousarray(x), np.asarray(src, np.float64).tolist(),
                                                      np.asarray(dst, np.float64).tolist(), cval))


_COCO_FLIP = (0, 1, 5, 6, 7, 2, 3, 4, 11, 12, 13, 8, 9, 10, 15, 14, 17, 16, 18)


def keypoint_random_flip(image, annos, mask=None, prob=0.5, flip_list=_COCO_FLIP):
    if np.random.uniform(0, 1.0) < prob:
        return image, annos, mask
    img, m, people = _prepro.keypoint_flip(np.ascontiguousarray(image), None if mask is None else np.ascontiguousarray(mask),
                                           np.asarray(annos, np.float64).tolist(), list(flip_list))
    return _np(img), [[tuple(p) for p in person] for person in people], None if m is None else _np(m)


def keypoint_random_resize_shortestedge(image, annos, mask=None, min_size=(368, 368), zoom_range=(0.8, 1.2),
                                        pad_val=(0, 0, 0)):
    zoom = np.random.uniform(zoom_range[0], zoom_range[1])
    img, m, people = _prepro.keypoint_resize_shortestedge(
        np.ascontiguousarray(image), None if mask is None else np.ascontiguousarray(mask),
        np.asarray(annos, np.float64).tolist(), min_size[0], min_size[1], zoom, list(pad_val))
    return _np(img), [[tuple(int(v) for v in p) for p in person] for person in people], None if m is None else _np(m)


def process_sequences(sequences, end_id=0, pad_val=0, is_shorten=True, remain_end_id=False):
    """After each sequence's first end_id, pad_val; then cut to the longest such prefix. A new list
    (TensorLayer edits its argument in place and returns it)."""
    return _prepro.process_sequences([list(map(int, s)) for s in sequences], end_id, pad_val, is_shorten, remain_end_id)
