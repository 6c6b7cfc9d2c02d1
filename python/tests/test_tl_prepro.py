"""strata.tl.prepro's TensorLayer tools against TensorLayer 2.2.5's own outputs, the fixtures the
C++ tests use (tests/vision/fixtures/tl_prepro_*.npz, from tests/vision/make_tl_prepro_fixtures.py)."""
import pathlib

import numpy as np

from strata import tl

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "vision" / "fixtures"


def _load(name):
    return np.load(FIXTURES / f"tl_prepro_{name}.npz")


def test_box_coordinates_and_darknet_text():
    z = _load("boxes")
    h, w = z["shape"]
    np.testing.assert_allclose(tl.prepro.obj_box_coords_rescale(z["coords"].tolist(), [h, w]), z["coords_rescale"])
    np.testing.assert_allclose([tl.prepro.obj_box_coord_scale_to_pixelunit(c, (h, w)) for c in z["fractions"].tolist()],
                               z["scale_to_pixelunit"])
    np.testing.assert_allclose([tl.prepro.obj_box_coord_centroid_to_upleft_butright(c, True) for c in z["coords"].tolist()],
                               z["centroid_to_upleft_butright_int"])
    parsed = tl.prepro.parse_darknet_ann_str_to_list(bytes(z["darknet_text"]).decode())
    classes, boxes = tl.prepro.parse_darknet_ann_list_to_cls_box(parsed)
    assert classes == z["darknet_classes"].tolist()
    np.testing.assert_array_equal(boxes, z["darknet_boxes"])


def test_gamma_illumination_and_morphology():
    c = _load("color")
    np.testing.assert_array_equal(tl.prepro.brightness(c["rgb"], gamma=2.2, gain=0.8), c["gamma_rgb_2"])
    g, con, sat = c["illumination_settings"][2]
    np.testing.assert_array_equal(tl.prepro.illumination(c["rgb"], g, con, sat), c["illumination_rgb_2"])
    m = _load("morphology")
    np.testing.assert_array_equal(tl.prepro.binary_dilation(m["binary"], 2), m["binary_dilation_2"])
    np.testing.assert_array_equal(tl.prepro.erosion(m["grey"], 3), m["erosion_3"])


def test_contours_and_warps():
    z = _load("contours")
    contours = tl.prepro.find_contours(z["image"], 0.5)
    np.testing.assert_allclose(np.concatenate(contours), z["points_0"])
    assert [len(x) for x in contours] == z["lengths_0"].tolist()
    w = _load("warp")
    np.testing.assert_allclose(tl.prepro.projective_transform_by_points(w["image"], w["src"], w["dst"]), w["projective"],
                               atol=1e-9)
    cx, cy, strength, radius, rotation, fill = w["swirls"][1]
    np.testing.assert_allclose(tl.prepro.swirl(w["image"], (cx, cy), strength, radius, rotation, cval=fill), w["swirl_1"],
                               atol=1e-9)


def test_keypoint_flip_swaps_joints():
    k = _load("keypoints")
    np.random.seed(3)  # the fixture's draw: flip
    image, people, mask = tl.prepro.keypoint_random_flip(k["image"], k["people"].tolist(), k["mask"])
    np.testing.assert_array_equal(image, k["flip_image"])
    np.testing.assert_array_equal(mask, k["flip_mask"])
    np.testing.assert_array_equal(np.array(people), k["flip_people"])


def test_process_sequences():
    z = _load("sequences")
    sequences = np.split(z["input"], np.cumsum(z["input_lengths"])[:-1])
    for k, (end_id, pad_val, shorten, remain) in enumerate(z["cases"]):
        got = tl.prepro.process_sequences(sequences, int(end_id), int(pad_val), bool(shorten), bool(remain))
        assert [len(s) for s in got] == z[f"output_lengths_{k}"].tolist()
        assert [v for s in got for v in s] == z[f"output_{k}"].tolist()


def test_small_tools():
    z = _load("iterate_utils")
    batches = list(tl.iterate.seq_minibatches2(z["inputs"], z["targets"], 3, 2))
    np.testing.assert_array_equal(np.stack([b[0] for b in batches]), z["seq2_x"])
    np.testing.assert_array_equal(np.stack([b[1] for b in batches]), z["seq2_y"])
    x, labels = tl.utils.class_balancing_oversample(z["balance_x"], z["balance_labels"])
    np.testing.assert_array_equal(x, z["balanced_x"])
    assert labels == z["balanced_labels"].tolist()
    v = np.linspace(-8, 14, 23)
    np.testing.assert_allclose(np.asarray(tl.act.lrelu6(v, 0.3)), np.minimum(np.maximum(v, 0.3 * v), 6))
    np.testing.assert_allclose(np.asarray(tl.act.ramp(v, -1, 3)), np.clip(v, -1, 3))
    p, w = np.array([0.2, 0.5, 0.3]), np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(float(np.asarray(tl.rein.log_weight(p, w))), np.mean(np.log(p) * w))
