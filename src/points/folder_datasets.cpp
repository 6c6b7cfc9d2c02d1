#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/file_bytes.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "strata/ops/combine.hpp"
#include "strata/points/datasets.hpp"
#include "strata/points/files.hpp"
#include "strata/points/mesh.hpp"
#include "strata/points/ragged.hpp"

namespace strata::points {
namespace {

namespace fs = std::filesystem;

// Example `index`'s own seed: a splitmix64 step, so neighbouring indices draw unrelated points.
uint64_t example_seed(uint64_t seed, int64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool hidden(const fs::path& p) { return p.filename().string().starts_with("."); }

std::string file_text(const fs::path& path, const char* what) {
  const std::vector<unsigned char> bytes = data::detail::read_file_bytes(path.string(), what);
  return std::string(bytes.begin(), bytes.end());
}

void check_points(int64_t points_per_cloud, const char* what) {
  STRATA_CHECK(points_per_cloud >= 1, what, ": points_per_cloud is ", points_per_cloud, "; expected >= 1");
}

}  // namespace

ModelNetFolder modelnet_folder(const std::string& root, const std::string& split, int64_t points_per_cloud,
                               uint64_t seed) {
  STRATA_CHECK(split == "train" || split == "test", "modelnet_folder: split is '", split,
               "'; expected 'train' or 'test'");
  check_points(points_per_cloud, "modelnet_folder");
  STRATA_CHECK(fs::is_directory(root), "modelnet_folder: ", root, " is not a folder");
  ModelNetFolder folder;
  folder.points_per_cloud = points_per_cloud;
  folder.seed = seed;
  for (const fs::directory_entry& e : fs::directory_iterator(root))
    if (e.is_directory() && !hidden(e.path())) folder.classes.push_back(e.path().filename().string());
  std::sort(folder.classes.begin(), folder.classes.end());
  for (size_t c = 0; c < folder.classes.size(); ++c) {
    const fs::path dir = fs::path(root) / folder.classes[c] / split;
    if (!fs::is_directory(dir)) continue;
    std::vector<std::string> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && !hidden(e.path()) && e.path().extension() == ".off") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    folder.paths.insert(folder.paths.end(), files.begin(), files.end());
    folder.labels.insert(folder.labels.end(), files.size(), static_cast<int64_t>(c));
  }
  STRATA_CHECK(!folder.paths.empty(), "modelnet_folder: no <class>/", split, "/*.off file under ", root);
  return folder;
}

data::Dataset ModelNetFolder::dataset() const {
  auto self = std::make_shared<const ModelNetFolder>(*this);
  return data::Dataset(static_cast<int64_t>(paths.size()), [self](int64_t k) -> data::Example {
    const PointCloudFile mesh = read_point_cloud(self->paths[k]);
    STRATA_CHECK(mesh.faces.size(0) > 0, "modelnet_folder: ", self->paths[k], " has no faces to sample from");
    return {sample_surface(mesh.points, mesh.faces, self->points_per_cloud, example_seed(self->seed, k)),
            scalar_tensor(static_cast<double>(self->labels[k]), kInt64)};
  });
}

ShapeNetPartFolder shapenet_part_folder(const std::string& root, const std::string& split, int64_t points_per_cloud,
                                        uint64_t seed) {
  STRATA_CHECK(split == "train" || split == "val" || split == "test", "shapenet_part_folder: split is '", split,
               "'; expected 'train', 'val' or 'test'");
  check_points(points_per_cloud, "shapenet_part_folder");
  ShapeNetPartFolder folder;
  folder.points_per_cloud = points_per_cloud;
  folder.seed = seed;
  const fs::path categories_path = fs::path(root) / "synsetoffset2category.txt";
  std::istringstream categories(file_text(categories_path, "shapenet_part_folder"));
  std::vector<std::pair<std::string, std::string>> named;  // (name, synset)
  for (std::string line; std::getline(categories, line);) {
    std::istringstream fields(line);
    std::string name, synset, extra;
    if (!(fields >> name)) continue;
    STRATA_CHECK(fields >> synset && !(fields >> extra) && synset.find('/') == std::string::npos && synset != "." &&
                     synset != "..",
                 "shapenet_part_folder: ", categories_path.string(), ": line '", line,
                 "'; expected '<name> <synset id>', the id a folder name");
    named.emplace_back(name, synset);
  }
  STRATA_CHECK(!named.empty(), "shapenet_part_folder: ", categories_path.string(), " names no category");
  std::sort(named.begin(), named.end());
  for (const auto& [name, synset] : named) {
    folder.categories.push_back(name);
    folder.synsets.push_back(synset);
  }

  const fs::path list_path = fs::path(root) / "train_test_split" / ("shuffled_" + split + "_file_list.json");
  const std::string list_text = file_text(list_path, "shapenet_part_folder");
  check_json_depth(list_text, list_path.string());
  const nlohmann::json list = nlohmann::json::parse(list_text, nullptr, false);
  STRATA_CHECK(list.is_array(), "shapenet_part_folder: ", list_path.string(), " is not a JSON list of names");
  for (const nlohmann::json& entry : list) {
    // "shape_data/<synset>/<model>": both parts plain names, so that a list cannot reach outside root.
    const std::string text = entry.is_string() ? entry.get<std::string>() : entry.dump();
    const size_t a = text.find('/'), b = text.find('/', a + 1);
    const bool shaped = entry.is_string() && text.starts_with("shape_data/") && b != std::string::npos &&
                        text.find('/', b + 1) == std::string::npos;
    const std::string synset = shaped ? text.substr(a + 1, b - a - 1) : "", model = shaped ? text.substr(b + 1) : "";
    const auto known = std::find(folder.synsets.begin(), folder.synsets.end(), synset);
    STRATA_CHECK(shaped && !model.empty() && model != ".." && model != "." && known != folder.synsets.end(),
                 "shapenet_part_folder: ", list_path.string(), ": entry '", text,
                 "' is not 'shape_data/<synset>/<model>' with a synset of synsetoffset2category.txt");
    folder.paths.push_back((fs::path(root) / synset / (model + ".txt")).string());
    folder.labels.push_back(known - folder.synsets.begin());
  }
  return folder;
}

data::Dataset ShapeNetPartFolder::dataset() const {
  auto self = std::make_shared<const ShapeNetPartFolder>(*this);
  return data::Dataset(static_cast<int64_t>(paths.size()), [self](int64_t k) -> data::Example {
    const PointCloudFile file = read_point_cloud(self->paths[k]);
    STRATA_CHECK(file.properties.size(1) == 4 && file.points.size(0) > 0, "shapenet_part_folder: ", self->paths[k],
                 " has ", file.points.size(0), " rows of ", 3 + file.properties.size(1),
                 " values; expected rows 'x y z nx ny nz part'");
    // The points and their parts resampled together, as one [N, 4] cloud.
    const Tensor rows = concat({file.points, file.properties.narrow(1, 3, 1)}, 1);
    const Tensor fixed = to_fixed(RaggedClouds::from_clouds({rows}), self->points_per_cloud, example_seed(self->seed, k));
    const Tensor cloud = fixed.select(0, 0);
    return {cloud.narrow(1, 0, 3).contiguous(), cloud.select(1, 3).to(kInt64),
            scalar_tensor(static_cast<double>(self->labels[k]), kInt64)};
  });
}

}  // namespace strata::points
