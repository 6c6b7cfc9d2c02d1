// PointCloudFile's columns, and reading a file by its extension.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "data/file_bytes.hpp"
#include "strata/core/error.hpp"
#include "strata/points/files.hpp"

namespace strata::points {

bool PointCloudFile::has_property(std::string_view name) const {
  return std::find(property_names.begin(), property_names.end(), name) != property_names.end();
}

Tensor PointCloudFile::property(std::string_view name) const {
  auto it = std::find(property_names.begin(), property_names.end(), name);
  if (it == property_names.end()) {
    std::string present;
    for (const std::string& n : property_names) present += (present.empty() ? "" : ", ") + n;
    throw Error("PointCloudFile: no property '" + std::string(name) + "'; it has " +
                (present.empty() ? std::string("none") : present));
  }
  return properties.select(1, it - property_names.begin()).contiguous();
}

PointCloudFile read_point_cloud(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  using Parser = PointCloudFile (*)(std::string_view, std::string_view);
  Parser parse = extension == ".ply"   ? parse_ply
                 : extension == ".off" ? parse_off
                 : extension == ".pcd" ? parse_pcd
                 : extension == ".csv" ? parse_csv
                 : extension == ".xyz" || extension == ".txt" ? parse_xyz
                                                                : nullptr;
  STRATA_CHECK(parse, "read_point_cloud: ", path, " ends in '", extension,
               "'; expected .ply, .off, .pcd, .xyz, .txt or .csv");
  const std::vector<unsigned char> bytes = data::detail::read_file_bytes(path, "read_point_cloud");
  return parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

}  // namespace strata::points
