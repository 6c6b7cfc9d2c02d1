"""strata.points from Python (docs/pointclouds.md): the files Open3D and trimesh wrote, round trips
through every writer, the data sets and augmentation with labels kept aligned, the ops and the
pictures, checked against NumPy."""
import json
import os

import numpy as np
import pytest

import strata
from strata import points

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "points", "fixtures")


def test_reads_what_open3d_and_trimesh_wrote():
    expected = json.load(open(os.path.join(FIXTURES, "expected.json")))
    for name in ("cloud_open3d_binary.ply", "cloud_open3d_compressed.pcd"):
        cloud = points.read_point_cloud(os.path.join(FIXTURES, name))
        np.testing.assert_allclose(np.asarray(cloud["points"]), expected["cloud_points"], rtol=1e-6)
        normals = np.stack([np.asarray(cloud["properties"][k]) for k in ("nx", "ny", "nz")
                            if k in cloud["properties"]] or
                           [np.asarray(cloud["properties"][k]) for k in ("normal_x", "normal_y", "normal_z")], 1)
        np.testing.assert_allclose(normals, expected["cloud_normals"], rtol=1e-5, atol=1e-6)
    cube = points.read_point_cloud(os.path.join(FIXTURES, "cube_trimesh.off"))
    np.testing.assert_array_equal(np.asarray(cube["faces"]), expected["cube_faces"])


def test_every_writer_round_trips(tmp_path):
    rng = np.random.default_rng(1)
    xyz = rng.uniform(-1, 1, (20, 3)).astype(np.float32)
    label = np.arange(20, dtype=np.float32)
    for write, name, kwargs in ((points.write_ply, "a.ply", {"format": "ascii"}), (points.write_ply, "b.ply", {}),
                                (points.write_pcd, "c.pcd", {"data": "binary_compressed"}),
                                (points.write_xyz, "d.xyz", {})):
        path = str(tmp_path / name)
        write(path, xyz, properties={"label": label}, **kwargs)
        back = points.read_point_cloud(path)
        np.testing.assert_allclose(np.asarray(back["points"]), xyz, rtol=1e-6)
        values = list(back["properties"].values())
        np.testing.assert_array_equal(np.asarray(values[0]), label)
    with pytest.raises(strata.Error, match="format"):
        points.write_ply(str(tmp_path / "e.ply"), xyz, format="binary")


def test_augmentation_keeps_each_label_with_its_point():
    # Point i's x coordinate is i and its label is i: after shuffling and dropout (dropped points
    # become the first point, label and all) every label still sits beside its point.
    xyz = np.zeros((4, 16, 3), np.float32)
    xyz[:, :, 0] = np.arange(16)
    labels = np.tile(np.arange(16, dtype=np.int64), (4, 1))
    data = strata.data.Dataset.from_tensors(xyz, labels)
    augmented = points.Augmentation(3).dropout(0.5).shuffle()(data)
    moved = 0
    for cloud, label in augmented:
        cloud, label = np.asarray(cloud), np.asarray(label)
        np.testing.assert_array_equal(cloud[:, 0].astype(np.int64), label)
        moved += int((label != np.arange(16)).any())
    assert moved == 4


def test_synthetic_sets_ops_and_pictures():
    shapes = points.synthetic_shapes(24, seed=1, points=128)
    cloud, label = shapes[13]
    assert np.asarray(cloud).shape == (128, 3) and int(np.asarray(label)) == 13 % 12
    assert len(points.synthetic_shape_classes()) == 12
    parts = points.synthetic_part_shapes(5, seed=1, points=64)
    _, part, category = parts[2]
    name, part_names, first = points.synthetic_part_categories()[int(np.asarray(category))]
    assert set(np.unique(np.asarray(part))) <= set(range(first, first + len(part_names)))

    src = np.array([[1.0, 5.0], [4.0, 2.0], [3.0, 3.0]])
    np.testing.assert_array_equal(np.asarray(points.scatter_max(src, np.array([1, 0, 1]), 2)), [[4, 2], [3, 5]])
    voxel, cells, counts = points.voxelize(np.array([[0.05, 0, 0], [0.07, 0.01, 0], [0.5, 0, 0]], np.float32), 0.1)
    np.testing.assert_array_equal(np.asarray(voxel), [0, 0, 1])
    np.testing.assert_array_equal(np.asarray(counts), [2, 1])
    a = np.random.default_rng(2).uniform(-1, 1, (1, 8, 3))
    assert float(np.asarray(points.earth_movers_distance(a, a[:, ::-1].copy(), 0.002, 300))[0]) < 1e-3

    image = np.asarray(points.render_cloud(np.asarray(cloud), np.zeros(128, np.int64), width=64, height=48))
    assert image.shape == (48, 64, 3) and image.dtype == np.uint8
    assert (image != 255).any() and (image == 255).all(axis=-1).any()  # points and background
