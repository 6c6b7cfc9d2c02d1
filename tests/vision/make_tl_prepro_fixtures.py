#!/usr/bin/env python3
"""Writes tests/vision/fixtures/tl_prepro_*.npz: inputs, parameters and TensorLayer 2.2.5's own
outputs for the prepro tools of strata/vision/prepro.hpp (tests/vision/test_prepro_*.cpp,
python/tests/test_tl_prepro.py) and, in tl_prepro_iterate_utils.npz, for seq_minibatches2,
class_balancing_oversample and the bilinear deconvolution initializer (tests/data/
test_tl_iterate_utils.cpp, tests/nn/test_bilinear_initializer.cpp).

    python3 tests/vision/make_tl_prepro_fixtures.py

It first makes (once) a virtual environment outside the clone, ~/.cache/strata-tl-prepro-venv,
with tensorlayer==2.2.5 installed --no-deps and the pinned libraries its prepro module calls, then
runs itself inside it. TensorFlow is NOT installed: TensorLayer's package __init__ imports it, so
tensorlayer/prepro.py is loaded by path with two stand-ins for the names it imports at module
level (`tensorlayer`, used only for tl.logging, and tensorlayer.lazy_imports.LazyImport, used only
for cv2). The functions used here call NumPy, SciPy, scikit-image and Pillow, never TensorFlow.

scikit-image 0.22 (the oldest with wheels for this Python) no longer takes the `selem=` keyword
TensorLayer 2.2.5 passes to its morphology functions; the stand-ins below rename it `footprint=`,
which is what scikit-image 0.19 did for `selem=`. TensorLayer's own `dilation` calls itself (it
never worked), so grey dilation is checked against scikit-image's dilation with disk(radius), the
reference its docstring names.
"""
import os
import pathlib
import subprocess
import sys

VENV = pathlib.Path.home() / ".cache" / "strata-tl-prepro-venv"
PINS = ["numpy==1.26.4", "scipy==1.11.4", "scikit-image==0.22.0", "Pillow==10.2.0", "opencv-python-headless==4.9.0.80",
        "six==1.16.0", "imageio==2.38.2", "lazy-loader==0.6", "networkx==3.6.1", "packaging==26.4",
        "tifffile==2026.3.3"]
HERE = pathlib.Path(__file__).resolve().parent / "fixtures"


def ensure_venv():
    python = VENV / "bin" / "python"
    if pathlib.Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
        subprocess.check_call([str(python), "-m", "pip", "install", "-q", *PINS])
        subprocess.check_call([str(python), "-m", "pip", "install", "-q", "--no-deps", "tensorlayer==2.2.5"])
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def load_tl_prepro():
    import importlib
    import importlib.util
    import logging
    import site
    import types

    # prepro.py says `import PIL` and uses PIL.Image and PIL.ImageEnhance, which older
    # scikit-image imported as a side effect; import them first so the attributes exist.
    import PIL.Image
    import PIL.ImageEnhance  # noqa: F401

    tl = types.ModuleType("tensorlayer")
    tl.logging = logging
    lazy = types.ModuleType("tensorlayer.lazy_imports")
    lazy.LazyImport = importlib.import_module
    sys.modules["tensorlayer"] = tl
    sys.modules["tensorlayer.lazy_imports"] = lazy
    path = pathlib.Path(site.getsitepackages()[0]) / "tensorlayer" / "prepro.py"
    spec = importlib.util.spec_from_file_location("tl_prepro", path)
    prepro = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prepro)

    def selem_to_footprint(fn):
        return lambda image, selem=None, **kw: fn(image, footprint=selem, **kw)

    for name in ("_binary_dilation", "_binary_erosion", "_erosion"):
        setattr(prepro, name, selem_to_footprint(getattr(prepro, name)))
    return prepro


def box_fixtures(tl, np, rng):
    coords = np.round(rng.uniform(-20, 120, size=(7, 4)), 2)
    fractions = rng.uniform(-0.2, 1.1, size=(7, 4))
    height, width = 75, 130
    out = {"coords": coords, "fractions": fractions, "shape": np.array([height, width], np.int64),
           "coords_rescale": np.array(tl.obj_box_coords_rescale(coords.tolist(), [height, width])),
           "coord_rescale": np.array([tl.obj_box_coord_rescale(c, [height, width]) for c in coords.tolist()]),
           "scale_to_pixelunit": np.array([tl.obj_box_coord_scale_to_pixelunit(c, (height, width, 3))
                                           for c in fractions.tolist()], np.float64)}
    for name in ("centroid_to_upleft_butright", "upleft_butright_to_centroid", "centroid_to_upleft",
                 "upleft_to_centroid"):
        fn = getattr(tl, "obj_box_coord_" + name)
        out[name] = np.array([fn(c) for c in coords.tolist()], np.float64)
    out["centroid_to_upleft_butright_int"] = np.array(
        [tl.obj_box_coord_centroid_to_upleft_butright(c, to_int=True) for c in coords.tolist()], np.float64)
    text = ("0 0.5 0.5 0.25 0.125\n"
            "\n"
            "12\t0.1  0.2 0.3 0.4\r\n"
            "3 0.1 0.2 0.3\n"              # four fields: skipped
            "4 0.1 0.2 0.3 0.4 0.5\n"      # six fields: skipped
            "  -7 +1e-3 2.5E1 -0.75 inf  \n"
            "+5 1 2 3 4")
    parsed = tl.parse_darknet_ann_str_to_list(text)
    classes, boxes = tl.parse_darknet_ann_list_to_cls_box(parsed)
    out.update(darknet_text=np.frombuffer(text.encode(), np.uint8), darknet_classes=np.array(classes, np.int64),
               darknet_boxes=np.array(boxes, np.float64))
    return out


def color_fixtures(tl, np, rng):
    rgb = rng.integers(0, 256, size=(9, 11, 3), dtype=np.uint8)
    grey = rng.integers(0, 256, size=(8, 6), dtype=np.uint8)
    floats = rng.uniform(0, 1.5, size=(5, 7, 3))
    gammas = np.array([[0.5, 1.0], [1.0, 1.0], [2.2, 0.8], [0.8, 1.3], [0.0, 1.0]])
    out = {"rgb": rgb, "grey": grey, "floats": floats, "gammas": gammas}
    for k, (gamma, gain) in enumerate(gammas):
        out[f"gamma_rgb_{k}"] = tl.brightness(rgb, gamma=gamma, gain=gain)
        out[f"gamma_floats_{k}"] = tl.brightness(floats, gamma=gamma, gain=gain)
    # (gamma, contrast, saturation): Pillow interpolates for factors in [0, 1], extrapolates above.
    settings = np.array([[1.0, 1.0, 1.0], [0.7, 0.6, 0.8], [1.6, 1.4, 1.7], [1.0, 0.0, 0.0], [0.9, 2.5, 3.0]])
    out["illumination_settings"] = settings
    for k, (gamma, contrast, saturation) in enumerate(settings):
        out[f"illumination_rgb_{k}"] = tl.illumination(rgb, gamma, contrast, saturation)
        out[f"illumination_grey_{k}"] = tl.illumination(grey, gamma, contrast, saturation)
    return out


def morphology_fixtures(tl, np, rng):
    from skimage.morphology import dilation, disk

    binary = rng.uniform(size=(17, 13)) > 0.8
    grey = rng.integers(0, 256, size=(15, 12), dtype=np.uint8)
    grey_float = rng.normal(size=(11, 14))
    out = {"binary": binary, "grey": grey, "grey_float": grey_float}
    for radius in (0, 1, 2, 3):
        out[f"disk_{radius}"] = disk(radius).astype(np.uint8)
        out[f"binary_dilation_{radius}"] = tl.binary_dilation(binary, radius)
        out[f"binary_erosion_{radius}"] = tl.binary_erosion(~binary, radius)
        out[f"erosion_{radius}"] = tl.erosion(grey, radius)
        out[f"erosion_float_{radius}"] = tl.erosion(grey_float, radius)
        out[f"dilation_{radius}"] = dilation(grey, footprint=disk(radius))
        out[f"dilation_float_{radius}"] = dilation(grey_float, footprint=disk(radius))
    return out


def contours_fixtures(tl, np, rng):
    # Two blobs and a ridge (closed and open contours, saddles where they meet), a few pixels
    # exactly at the level (degenerate segments) and a NaN (squares skipped).
    r, c = np.mgrid[0:16, 0:19].astype(np.float64)
    image = np.exp(-((r - 5) ** 2 + (c - 5) ** 2) / 8) + np.exp(-((r - 9) ** 2 + (c - 11) ** 2) / 6) + 0.03 * c
    image = np.round(image + 0.05 * rng.normal(size=image.shape), 2)
    image[12, 3] = np.nan
    out = {"image": image}
    cases = [(0.5, "low", "low"), (0.5, "high", "low"), (0.5, "low", "high"), (0.3, "high", "high"),
             (float(image[4, 6]), "low", "low")]
    for k, (level, connected, orientation) in enumerate(cases):
        contours = tl.find_contours(image, level, fully_connected=connected, positive_orientation=orientation)
        out[f"case_{k}"] = np.array([level, connected == "high", orientation == "high"], np.float64)
        out[f"lengths_{k}"] = np.array([len(x) for x in contours], np.int64)
        out[f"points_{k}"] = np.concatenate(contours) if contours else np.zeros((0, 2))
    # pt2map: halves round to even (np.round); the lists are ragged, as find_contours returns them.
    lists = [np.array([[0.0, 0.0], [2.5, 3.5], [1.49, 6.51]]), np.array([[8.6, 9.4]]), np.zeros((0, 2))]
    out.update(map=tl.pt2map(lists, size=(10, 12), val=0.75), map_size=np.array([10, 12], np.int64))
    for k, points in enumerate(lists):
        out[f"map_points_{k}"] = points
    return out


def warp_fixtures(tl, np, rng):
    from skimage import transform

    image = rng.uniform(0.1, 0.9, size=(13, 17, 3))
    grey = rng.integers(0, 256, size=(12, 10), dtype=np.uint8)
    src = np.array([[1.0, 2.0], [15.0, 1.0], [16.0, 12.0], [0.5, 11.0]])
    dst = np.array([[3.0, 0.0], [13.5, 2.5], [14.0, 10.0], [2.0, 12.5]])
    six_src = np.vstack([src, [[8.0, 6.0], [4.0, 9.0]]])
    six_dst = np.vstack([dst, [[8.5, 6.5], [5.0, 8.0]]])
    m4, m6 = transform.ProjectiveTransform(), transform.ProjectiveTransform()
    m4.estimate(src, dst)
    m6.estimate(six_src, six_dst)
    out = {"image": image, "grey": grey, "src": src, "dst": dst, "six_src": six_src, "six_dst": six_dst,
           "estimate_4": m4.params, "estimate_6": m6.params,
           "projective": tl.projective_transform_by_points(image, src, dst),
           "projective_fill": tl.projective_transform_by_points(image, src, dst, cval=1.5),
           "projective_grey": tl.projective_transform_by_points(grey, src, dst)}
    # (center x, center y or nan for the middle, strength, radius, rotation in degrees, fill)
    swirls = np.array([[np.nan, np.nan, 1, 100, 0, 0], [6.5, 4.0, 3, 9, 30, 0], [12.0, 9.0, -2, 5, -45, 0.95]])
    out["swirls"] = swirls
    for k, (cx, cy, strength, radius, rotation, fill) in enumerate(swirls):
        center = None if np.isnan(cx) else (cx, cy)
        out[f"swirl_{k}"] = tl.swirl(image, center=center, strength=strength, radius=radius, rotation=rotation, cval=fill)
        out[f"swirl_grey_{k}"] = tl.swirl(grey, center=center, strength=strength, radius=radius, rotation=rotation)
    return out


def keypoint_fixtures(tl, np, rng):
    # keypoint_random_flip with its draw fixed to "flip": np.random.uniform is seeded so that the
    # first draw is above prob=0.5 (checked below).
    image = rng.integers(0, 256, size=(11, 14, 3), dtype=np.uint8)
    mask = rng.integers(0, 2, size=(11, 14), dtype=np.uint8)
    people = rng.uniform(-2, 15, size=(2, 19, 2)).round(1)
    people[0, 3] = (-1000, -1000)
    people[1, 0] = (0.5, 3.0)  # x < 1: lands past the right edge after TensorLayer's width - x
    np.random.seed(3)
    assert np.random.uniform(0, 1.0) >= 0.5
    np.random.seed(3)
    flipped, flipped_annos, flipped_mask = tl.keypoint_random_flip(image, people.tolist(), mask, prob=0.5)
    out = {"image": image, "mask": mask, "people": people, "flip_image": flipped, "flip_mask": flipped_mask,
           "flip_people": np.array(flipped_annos, np.float64)}
    # keypoint_random_resize_shortestedge with its zoom fixed: np.random.uniform is replaced by a
    # function returning the zoom for the one draw it makes.
    floats = rng.uniform(0, 255, size=(23, 31, 3)).astype(np.float32)
    float_mask = rng.uniform(0, 1, size=(23, 31)).astype(np.float32)
    joints = rng.uniform(0, 30, size=(1, 5, 2)).round(2)
    joints[0, 2] = (-1000, -1000)
    cases = np.array([[16, 20, 1.0], [12, 12, 0.9], [40, 50, 1.1], [30, 20, 1.0], [23, 31, 1.0]])
    out.update(floats=floats, float_mask=float_mask, joints=joints, shortest_cases=cases)
    uniform = np.random.uniform
    try:
        for k, (min_h, min_w, zoom) in enumerate(cases):
            np.random.uniform = lambda low, high, _z=zoom: _z
            img, annos, m = tl.keypoint_random_resize_shortestedge(
                floats, joints.tolist(), float_mask, min_size=(int(min_h), int(min_w)), pad_val=(1.0, 2.0, 3.0))
            out[f"shortest_image_{k}"], out[f"shortest_mask_{k}"] = img, m
            out[f"shortest_people_{k}"] = np.array(annos, np.float64)
            img, _, _ = tl.keypoint_random_resize_shortestedge(
                image, joints.tolist(), mask, min_size=(int(min_h), int(min_w)), pad_val=(1, 2, 3))
            out[f"shortest_u8_{k}"] = img
    finally:
        np.random.uniform = uniform
    return out


def multi_fixtures(tl, np, rng):
    # rotation_multi and shift_multi with fixed values, once with order=1 (the image) and once with
    # order=0 (the mask), fill_mode="constant". The images have a ring of zeros (the fill): scipy's
    # "constant" mode does not interpolate across the border and Strata's sampler does, which
    # then agree.
    image = np.zeros((14, 18, 3))
    image[1:-1, 1:-1] = rng.uniform(0.2, 1, size=(12, 16, 3))
    mask = np.zeros((14, 18, 3))  # TensorLayer stacks the results: the same channel count as the image
    mask[3:10, 4:13] = rng.integers(1, 4, size=(7, 9, 1))
    out = {"image": image, "mask": mask, "rotation": np.array(25.0), "shift": np.array([0.1, -0.2])}
    for order in (0, 1):
        rot = tl.rotation_multi([image, mask], rg=25, is_random=False, fill_mode="constant", order=order)
        sh = tl.shift_multi([image, mask], wrg=0.1, hrg=-0.2, is_random=False, fill_mode="constant", order=order)
        out[f"rotation_image_{order}"], out[f"rotation_mask_{order}"] = rot[0], rot[1]
        out[f"shift_image_{order}"], out[f"shift_mask_{order}"] = sh[0], sh[1]
    return out


def sequences_fixtures(tl, np, rng):
    # Ragged lists, stored flat with their lengths; TensorLayer edits them in place, so each call
    # gets a fresh copy.
    sequences = [[4, 2, 0, 5, 0, 3], [1, 1, 1], [7, 0], [0, 9, 9, 9, 9], [3, 2, 1, 8, 0]]
    out = {"input": np.concatenate(sequences).astype(np.int64), "input_lengths": np.array([len(s) for s in sequences])}
    cases = [(0, 0, True, False), (0, -1, True, True), (9, 5, False, False), (1, 0, True, False), (42, 0, True, True)]
    out["cases"] = np.array(cases, np.int64)
    for k, (end_id, pad_val, shorten, remain) in enumerate(cases):
        result = tl.process_sequences([list(s) for s in sequences], end_id=end_id, pad_val=pad_val,
                                      is_shorten=bool(shorten), remain_end_id=bool(remain))
        out[f"output_{k}"] = np.array([v for s in result for v in s], np.int64)
        out[f"output_lengths_{k}"] = np.array([len(s) for s in result], np.int64)
    return out


def load_tl_module(name):
    """tensorlayer/<name>.py by path. utils.py imports TensorFlow and scikit-learn at module level
    for functions not used here (and at module level only decorates a training step with
    tf.function and builds a default tf.optimizers.Adam); stand-ins take those names."""
    import importlib.util
    import site
    import types

    for stub in ("tensorflow", "sklearn", "sklearn.metrics"):
        sys.modules.setdefault(stub, types.ModuleType(stub))
    sys.modules["tensorflow"].function = lambda fn: fn
    sys.modules["tensorflow"].optimizers = types.SimpleNamespace(Adam=lambda **_: None)
    for fn in ("accuracy_score", "confusion_matrix", "f1_score"):
        setattr(sys.modules["sklearn.metrics"], fn, None)
    path = pathlib.Path(site.getsitepackages()[0]) / "tensorlayer" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"tl_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def iterate_utils_fixtures(tl, np, rng):
    iterate, utils = load_tl_module("iterate"), load_tl_module("utils")
    inputs = rng.integers(0, 50, size=(23, 2)).astype(np.int64)
    targets = rng.integers(0, 9, size=23).astype(np.int64)
    out = {"inputs": inputs, "targets": targets}
    batches = list(iterate.seq_minibatches2(inputs, targets, batch_size=3, num_steps=2))
    out["seq2_x"] = np.stack([b[0] for b in batches])
    out["seq2_y"] = np.stack([b[1] for b in batches])
    labels = np.array([2, 0, 1, 0, 2, 0, 3, 1, 0, 2, 3, 0])  # TensorLayer needs a class 0 (it reads X[0])
    x = rng.normal(size=(12, 3))
    balanced_x, balanced_y = utils.class_balancing_oversample(x, labels, printable=False)
    out.update(balance_x=x, balance_labels=labels.astype(np.int64), balanced_x=balanced_x,
               balanced_labels=np.array(balanced_y, np.int64))
    # deconv2d_bilinear_upsampling_initializer ends in tf.constant_initializer(value=weights): the
    # stand-in returns the NumPy weights it is given (tf.float32 is only a default argument).
    sys.modules["tensorflow"].constant_initializer = lambda value: value
    sys.modules["tensorflow"].float32 = np.float32
    initializers = load_tl_module("initializers")
    for k, shape in enumerate([(4, 4, 2, 3), (3, 3, 1, 1), (5, 5, 2, 2)]):
        out[f"bilinear_shape_{k}"] = np.array(shape, np.int64)
        out[f"bilinear_{k}"] = initializers.deconv2d_bilinear_upsampling_initializer(shape)
    return out


def main():
    ensure_venv()
    import numpy as np

    tl = load_tl_prepro()
    for name, make in (("boxes", box_fixtures), ("color", color_fixtures), ("morphology", morphology_fixtures),
                       ("contours", contours_fixtures),
                       ("warp", warp_fixtures),
                       ("keypoints", keypoint_fixtures),
                       ("multi", multi_fixtures),
                       ("sequences", sequences_fixtures),
                       ("iterate_utils", iterate_utils_fixtures)):
        rng = np.random.default_rng(2025)
        path = HERE / f"tl_prepro_{name}.npz"
        np.savez_compressed(path, **make(tl, np, rng))
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
