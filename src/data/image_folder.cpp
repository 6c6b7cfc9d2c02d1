#include "strata/data/image_folder.hpp"

#include <algorithm>
#include <filesystem>

#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"

namespace strata::data {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_image(const fs::path& file, const std::vector<std::string>& extensions) {
  const std::string ext = lower(file.extension().string());
  return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& e) { return lower(e) == ext; });
}

bool hidden(const fs::path& p) { return p.filename().string().starts_with("."); }

}  // namespace

ImageFolder image_folder(const std::string& root, const ImageFolderOptions& options) {
  STRATA_CHECK(fs::is_directory(root), "image_folder: ", root, " is not a directory");
  STRATA_CHECK(options.channels >= 0 && options.channels <= 4, "image_folder(", root,
               "): channels must be 0 (as stored) or 1 to 4, got ", options.channels);
  std::vector<fs::path> class_dirs;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && !hidden(entry.path())) class_dirs.push_back(entry.path());
  std::sort(class_dirs.begin(), class_dirs.end());

  ImageFolder folder;
  folder.options = options;
  for (const fs::path& dir : class_dirs) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file() && !hidden(entry.path()) && is_image(entry.path(), options.extensions))
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    const auto label = static_cast<int64_t>(folder.classes.size());
    folder.classes.push_back(dir.filename().string());
    for (const fs::path& f : files) {
      folder.paths.push_back(f.string());
      folder.labels.push_back(label);
    }
  }
  STRATA_CHECK(!folder.paths.empty(), "image_folder: no images in the class folders of ", root, " (",
               folder.classes.size(), " sub-folders; expected root/<class>/<image> files)");
  return folder;
}

Dataset ImageFolder::dataset() const {
  auto paths_copy = std::make_shared<const std::vector<std::string>>(paths);
  auto labels_copy = std::make_shared<const std::vector<int64_t>>(labels);
  const int channels = options.channels;
  return Dataset(static_cast<int64_t>(paths.size()), [paths_copy, labels_copy, channels](int64_t i) {
    return Example{read_image((*paths_copy)[i], channels), scalar_tensor(static_cast<double>((*labels_copy)[i]), kInt64)};
  });
}

}  // namespace strata::data
