"""3-D point clouds (docs/pointclouds.md): ``read_point_cloud`` / ``write_ply`` / ``write_pcd`` /
``write_off`` / ``write_xyz``, meshes (``sample_surface``, ``face_normals``, ``vertex_normals``), the
synthetic and folder data sets (``synthetic_shapes``, ``synthetic_part_shapes``,
``modelnet_folder``, ``shapenet_part_folder``), ``Augmentation`` (``Augmentation(0).rotate_about_axis()
.jitter().shuffle()(dataset)``), ``scatter_max``, ``voxelize``, ``earth_movers_distance``,
``part_mean_iou`` and ``render_cloud``. The layers are ``strata.nn.PointNet``, ``SetAbstraction``,
``FeaturePropagation``, ``EdgeConv``, ``XConv``; the searches ``strata.knn``, ``strata.ball_query``, ..."""
from ._strata.points import *  # noqa: F401,F403
