// strata.points: 3-D point clouds from Python (docs/pointclouds.md): files, meshes, the synthetic
// and folder data sets, augmentation, scatter / voxel / EMD ops, part IoU and pictures. The
// layers are strata.nn classes like every registered layer; the searches are strata.knn, ...
#include <map>

#include "bindings.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/points/augment.hpp"
#include "strata/points/datasets.hpp"
#include "strata/points/files.hpp"
#include "strata/points/mesh.hpp"
#include "strata/points/part_iou.hpp"
#include "strata/points/ragged.hpp"
#include "strata/points/render.hpp"
#include "strata/points/scatter.hpp"
#include "strata/points/synthetic_shapes.hpp"

namespace strata::python {
namespace {

// A file's contents as a dict of arrays: points, faces and each named per-point property.
py::dict file_dict(const points::PointCloudFile& f) {
  py::dict properties;
  for (const std::string& name : f.property_names) properties[py::str(name)] = f.property(name);
  py::dict out;
  out["points"] = f.points;
  out["faces"] = f.faces;
  out["properties"] = properties;
  return out;
}

// The file to write from points [P, 3], optional faces [F, 3] and named properties [P] each.
points::PointCloudFile file_of(py::handle points, py::handle faces, const py::dict& properties) {
  points::PointCloudFile f;
  f.points = strata::cast(as_tensor(points), kFloat32).contiguous();
  STRATA_CHECK(f.points.dim() == 2 && f.points.size(1) == 3, "points must be [P, 3], got ", f.points.shape().str());
  f.faces = faces.is_none() ? zeros({0, 3}, kInt64) : strata::cast(as_tensor(faces), kInt64).contiguous();
  std::vector<Tensor> columns;
  for (const auto& [name, values] : properties) {
    f.property_names.push_back(name.cast<std::string>());
    columns.push_back(strata::cast(as_tensor(values), kFloat32).reshape({f.points.size(0), 1}));
  }
  f.properties = columns.empty() ? zeros({f.points.size(0), 0}) : strata::concat(columns, 1).contiguous();
  return f;
}

template <class Enum>
Enum choice(const std::string& value, const std::map<std::string, Enum>& names, const char* what) {
  const auto it = names.find(value);
  if (it == names.end()) {
    std::string known;
    for (const auto& [n, e] : names) known += (known.empty() ? "" : ", ") + n;
    throw Error(std::string(what) + ": expected one of " + known + ", got '" + value + "'");
  }
  return it->second;
}

points::SyntheticShapeOptions shape_options(int64_t points, double occlusion, double noise) {
  return {.points = points, .occlusion = occlusion, .noise = noise};
}

}  // namespace

void bind_points(py::module_& parent) {
  py::module_ m = parent.def_submodule("points", "3-D point clouds: files, meshes, data sets, augmentation, pictures");

  m.def("read_point_cloud", [](const std::string& path) {
    points::PointCloudFile f;
    {
      py::gil_scoped_release release;
      f = points::read_point_cloud(path);
    }
    return file_dict(f);
  }, py::arg("path"), "A .ply, .off, .pcd, .xyz/.txt or .csv file as {'points', 'faces', 'properties': {name: [P]}}.");
  m.def("write_ply", [](const std::string& path, py::handle pts, py::handle faces, const py::dict& properties,
                        const std::string& format) {
    points::write_ply(path, file_of(pts, faces, properties),
                      choice<points::PlyFormat>(format, {{"ascii", points::PlyFormat::ascii},
                                                         {"binary_little_endian", points::PlyFormat::binary_little_endian},
                                                         {"binary_big_endian", points::PlyFormat::binary_big_endian}},
                                                "write_ply format"));
  }, py::arg("path"), py::arg("points"), py::arg("faces") = py::none(), py::arg("properties") = py::dict(),
     py::arg("format") = "binary_little_endian", "Writes PLY (red, green, blue, alpha as uchar), replacing the file whole.");
  m.def("write_pcd", [](const std::string& path, py::handle pts, const py::dict& properties, const std::string& data) {
    points::write_pcd(path, file_of(pts, py::none(), properties),
                      choice<points::PcdData>(data, {{"ascii", points::PcdData::ascii}, {"binary", points::PcdData::binary},
                                                     {"binary_compressed", points::PcdData::binary_compressed}},
                                              "write_pcd data"));
  }, py::arg("path"), py::arg("points"), py::arg("properties") = py::dict(), py::arg("data") = "binary",
     "Writes PCL's PCD (colours packed into rgb), replacing the file whole.");
  m.def("write_off", [](const std::string& path, py::handle pts, py::handle faces) {
    points::write_off(path, file_of(pts, faces, {}));
  }, py::arg("path"), py::arg("points"), py::arg("faces") = py::none(), "Writes OFF: points and faces.");
  m.def("write_xyz", [](const std::string& path, py::handle pts, const py::dict& properties) {
    points::write_xyz(path, file_of(pts, py::none(), properties));
  }, py::arg("path"), py::arg("points"), py::arg("properties") = py::dict(), "Writes x y z and the properties, a point a line.");

  m.def("sample_surface", [](py::handle vertices, py::handle faces, int64_t count, uint64_t seed) {
    return points::sample_surface(as_tensor(vertices), as_tensor(faces), count, seed);
  }, py::arg("vertices"), py::arg("faces"), py::arg("count"), py::arg("seed") = 0,
     "[count, 3] points uniform over a mesh's surface, differentiable in the vertices.");
  m.def("face_normals", [](py::handle v, py::handle f) { return points::face_normals(as_tensor(v), as_tensor(f)); },
        py::arg("vertices"), py::arg("faces"), "Unit normals of the triangles [F, 3] (right-hand rule).");
  m.def("vertex_normals", [](py::handle v, py::handle f) { return points::vertex_normals(as_tensor(v), as_tensor(f)); },
        py::arg("vertices"), py::arg("faces"), "Unit area-weighted normals at the vertices [V, 3].");
  m.def("to_fixed", [](const std::vector<py::handle>& clouds, int64_t count, uint64_t seed) {
    std::vector<Tensor> tensors;
    for (py::handle c : clouds) tensors.push_back(as_tensor(c));
    return points::to_fixed(points::RaggedClouds::from_clouds(tensors), count, seed);
  }, py::arg("clouds"), py::arg("count"), py::arg("seed") = 0,
     "Clouds [P_i, D] of any sizes resampled to [B, count, D] (a subset, or all then repeats).");

  m.def("synthetic_shapes", [](int64_t size, uint64_t seed, int64_t points, double occlusion, double noise) {
    return points::synthetic_shapes(size, seed, shape_options(points, occlusion, noise));
  }, py::arg("size"), py::arg("seed") = 0, py::arg("points") = 1024, py::arg("occlusion") = 0.7, py::arg("noise") = 0.01,
     "A Dataset of (points [P, 3], label) over 12 parametric shape classes (synthetic_shape_classes()).");
  m.def("synthetic_shape_classes", &points::synthetic_shape_classes);
  m.def("synthetic_part_shapes", [](int64_t size, uint64_t seed, int64_t points, double occlusion, double noise) {
    return points::synthetic_part_shapes(size, seed, shape_options(points, occlusion, noise));
  }, py::arg("size"), py::arg("seed") = 0, py::arg("points") = 1024, py::arg("occlusion") = 0.7, py::arg("noise") = 0.01,
     "A Dataset of (points [P, 3], part [P], category) over 5 categories of labelled parts.");
  m.def("synthetic_part_categories", [] {
    py::list out;
    for (const auto& c : points::synthetic_part_categories()) out.append(py::make_tuple(c.name, c.parts, c.first_part));
    return out;
  }, "(name, part names, first global part id) of each category.");
  m.def("modelnet_folder", [](const std::string& root, const std::string& split, int64_t points, uint64_t seed) {
    const points::ModelNetFolder f = points::modelnet_folder(root, split, points, seed);
    return py::make_tuple(f.dataset(), f.classes);
  }, py::arg("root"), py::arg("split"), py::arg("points") = 1024, py::arg("seed") = 0,
     "ModelNet's <root>/<class>/<split>/*.off: (a Dataset of (points [P, 3], label), the class names).");
  m.def("shapenet_part_folder", [](const std::string& root, const std::string& split, int64_t points, uint64_t seed) {
    const points::ShapeNetPartFolder f = points::shapenet_part_folder(root, split, points, seed);
    return py::make_tuple(f.dataset(), f.categories);
  }, py::arg("root"), py::arg("split"), py::arg("points") = 2048, py::arg("seed") = 0,
     "ShapeNet-Part's folder: (a Dataset of (points [P, 3], part [P], category), the category names).");

  py::class_<points::Augmentation>(m, "Augmentation",
                                   "A chain of point-cloud augmentations for data sets of (points, ...): "
                                   "per-point labels follow dropout and shuffling.")
      .def(py::init<uint64_t, bool>(), py::arg("seed") = 0, py::arg("normals") = false)
      .def("rotate_about_axis", &points::Augmentation::rotate_about_axis, py::arg("axis") = 1, py::return_value_policy::reference_internal)
      .def("rotate_so3", &points::Augmentation::rotate_so3, py::return_value_policy::reference_internal)
      .def("scale", &points::Augmentation::scale, py::arg("low") = 0.8, py::arg("high") = 1.25, py::return_value_policy::reference_internal)
      .def("jitter", &points::Augmentation::jitter, py::arg("sigma") = 0.01, py::arg("clip") = 0.05, py::return_value_policy::reference_internal)
      .def("translate", &points::Augmentation::translate, py::arg("range") = 0.1, py::return_value_policy::reference_internal)
      .def("dropout", &points::Augmentation::dropout, py::arg("max_ratio") = 0.875, py::return_value_policy::reference_internal)
      .def("shuffle", &points::Augmentation::shuffle, py::return_value_policy::reference_internal)
      .def("normalize", &points::Augmentation::normalize, py::return_value_policy::reference_internal)
      .def("__call__", [](const points::Augmentation& a, const data::Dataset& d, int threads) {
        return d.map(a, threads);
      }, py::arg("dataset"), py::arg("threads") = 1, "The data set with these steps run (in C++) on each read.");

  m.def("scatter_max", [](py::handle src, py::handle index, int64_t count) {
    return points::scatter_max(as_tensor(src), as_tensor(index), count);
  }, py::arg("src"), py::arg("index"), py::arg("count"), "[count, C]: each cell's maximum of the rows sent to it (0 if none).");
  m.def("voxelize", [](py::handle pts, double size) {
    const points::Voxels v = points::voxelize(as_tensor(pts), size);
    return py::make_tuple(v.point_voxel, v.coordinates, v.counts);
  }, py::arg("points"), py::arg("voxel_size"), "(voxel of each point [N], each voxel's cell [V, 3], points per voxel [V]).");
  m.def("earth_movers_distance", [](py::handle a, py::handle b, double epsilon, int64_t iterations) {
    return points::earth_movers_distance(as_tensor(a), as_tensor(b), epsilon, iterations);
  }, py::arg("a"), py::arg("b"), py::arg("epsilon") = 0.01, py::arg("iterations") = 100,
     "[B]: the approximate EMD (Sinkhorn's plan) between clouds of the same size, differentiable.");
  m.def("part_mean_iou", [](py::handle logits, py::handle truth, py::handle categories,
                            const std::vector<std::tuple<std::string, int64_t, int64_t>>& ranges) {
    std::vector<points::PartRange> r;
    for (const auto& [name, first, count] : ranges) r.push_back({name, first, count});
    const points::PartIou iou = points::part_mean_iou(as_tensor(logits), as_tensor(truth), as_tensor(categories), r);
    py::dict out;
    out["instance_miou"] = iou.instance_miou;
    out["class_miou"] = iou.class_miou;
    out["per_category"] = iou.per_category;
    out["predictions"] = iou.predictions;
    return out;
  }, py::arg("logits"), py::arg("truth"), py::arg("categories"), py::arg("ranges"),
     "ShapeNet-Part's instance and class mIoU; ranges: (name, first part, part count) per category.");

  m.def("render_cloud", [](py::handle cloud, py::handle color_by, int64_t width, int64_t height, double azimuth,
                           double elevation) {
    return points::render_cloud(as_tensor(cloud), color_by.is_none() ? Tensor() : as_tensor(color_by),
                                {.width = width, .height = height, .azimuth = azimuth, .elevation = elevation});
  }, py::arg("cloud"), py::arg("color_by") = py::none(), py::arg("width") = 256, py::arg("height") = 256,
     py::arg("azimuth") = 30.0, py::arg("elevation") = 20.0,
     "uint8 [H, W, 3]: the cloud's points as shaded discs, coloured by integer labels or a scalar per point.");
}

}  // namespace strata::python
