#!/usr/bin/env python3
"""Writes the point-cloud fixtures of tests/points/test_files.cpp with the real tools.

The files come from trimesh (meshes: PLY, OFF) and Open3D (clouds with normals and colours: PLY,
PCD in its three DATA kinds, XYZ), so the readers are checked against what users' files hold,
not against Strata's own writers. expected.json holds the values the files were made from.

Run it in a virtual environment outside the clone (the pins are the versions checked in):

    python3 -m venv ~/.cache/strata-pointcloud-venv
    ~/.cache/strata-pointcloud-venv/bin/pip install trimesh==4.5.3 open3d==0.18.0 \
        numpy==1.26.4 pandas==2.2.3
    ~/.cache/strata-pointcloud-venv/bin/python tests/points/make_pointcloud_fixtures.py

(open3d 0.18 is built against NumPy 1.x, and its import pulls pandas, which must match that NumPy.)
"""
import json
import pathlib

import numpy as np
import open3d as o3d
import trimesh

OUT = pathlib.Path(__file__).resolve().parent / "fixtures"


def cube_mesh():
    """A unit cube (8 vertices, 12 triangles) with one colour a vertex."""
    mesh = trimesh.creation.box(extents=(1.0, 2.0, 3.0))
    colours = np.array([[(37 * i) % 256, (91 * i + 20) % 256, (53 * i + 7) % 256, 255] for i in range(8)], np.uint8)
    mesh.visual.vertex_colors = colours
    return mesh, colours


def cloud():
    """24 points with unit normals and colours that are whole numbers of 1/255 (exact in uint8)."""
    rng = np.random.default_rng(44)
    points = rng.uniform(-1, 1, (24, 3)).astype(np.float32)
    normals = rng.normal(size=(24, 3))
    normals = (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32)
    colours = rng.integers(0, 256, (24, 3)).astype(np.uint8)
    pcd = o3d.geometry.PointCloud()
    pcd.points = o3d.utility.Vector3dVector(points.astype(np.float64))
    pcd.normals = o3d.utility.Vector3dVector(normals.astype(np.float64))
    pcd.colors = o3d.utility.Vector3dVector(colours.astype(np.float64) / 255.0)
    return pcd, points, normals, colours


def main():
    OUT.mkdir(exist_ok=True)
    mesh, mesh_colours = cube_mesh()
    (OUT / "cube_trimesh_ascii.ply").write_bytes(trimesh.exchange.ply.export_ply(mesh, encoding="ascii", vertex_normal=True))
    (OUT / "cube_trimesh_binary.ply").write_bytes(trimesh.exchange.ply.export_ply(mesh, encoding="binary"))
    (OUT / "cube_trimesh.off").write_text(trimesh.exchange.off.export_off(mesh))

    pcd, points, normals, colours = cloud()
    o3d.io.write_point_cloud(str(OUT / "cloud_open3d_ascii.ply"), pcd, write_ascii=True)
    o3d.io.write_point_cloud(str(OUT / "cloud_open3d_binary.ply"), pcd)
    o3d.io.write_point_cloud(str(OUT / "cloud_open3d_ascii.pcd"), pcd, write_ascii=True)
    o3d.io.write_point_cloud(str(OUT / "cloud_open3d_binary.pcd"), pcd)
    o3d.io.write_point_cloud(str(OUT / "cloud_open3d_compressed.pcd"), pcd, compressed=True)
    o3d.io.write_point_cloud(str(OUT / "cloud_open3d.xyz"), pcd)

    expected = {
        "cube_vertices": np.asarray(mesh.vertices).tolist(),
        "cube_faces": np.asarray(mesh.faces).tolist(),
        "cube_vertex_normals": np.asarray(mesh.vertex_normals).tolist(),
        "cube_colours": mesh_colours.tolist(),
        "cloud_points": points.tolist(),
        "cloud_normals": normals.tolist(),
        "cloud_colours": colours.tolist(),
        "tools": {"trimesh": trimesh.__version__, "open3d": o3d.__version__, "numpy": np.__version__},
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for path in sorted(OUT.iterdir()):
        assert path.stat().st_size < 8192, f"{path.name} is {path.stat().st_size} bytes; fixtures stay under 8 KB"
        print(f"{path.stat().st_size:6d}  {path.name}")


if __name__ == "__main__":
    main()
