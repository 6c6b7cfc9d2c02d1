#include "strata/data/image_folder.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>

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

void check_options(const char* op, const std::string& root, const ImageFolderOptions& options) {
  STRATA_CHECK(fs::is_directory(root), op, ": ", root, " is not a directory");
  STRATA_CHECK(options.channels >= 0 && options.channels <= 4, op, "(", root,
               "): channels must be 0 (as stored) or 1 to 4, got ", options.channels);
}

// The image files directly in `dir`, sorted.
std::vector<fs::path> images_in(const fs::path& dir, const ImageFolderOptions& options) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && !hidden(entry.path()) && is_image(entry.path(), options.extensions))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Example i: the image at paths[i], then extra(i)'s tensors (a label, or nothing).
Dataset image_dataset(const std::vector<std::string>& paths, int channels,
                      std::function<std::vector<Tensor>(int64_t)> extra) {
  auto paths_copy = std::make_shared<const std::vector<std::string>>(paths);
  return Dataset(static_cast<int64_t>(paths.size()), [paths_copy, channels, extra](int64_t i) {
    std::vector<Tensor> fields{read_image((*paths_copy)[i], channels)};
    for (Tensor& t : extra(i)) fields.push_back(std::move(t));
    return Example(std::move(fields));
  });
}

}  // namespace

ImageFolder image_folder(const std::string& root, const ImageFolderOptions& options) {
  check_options("image_folder", root, options);
  std::vector<fs::path> class_dirs;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && !hidden(entry.path())) class_dirs.push_back(entry.path());
  std::sort(class_dirs.begin(), class_dirs.end());

  ImageFolder folder;
  folder.options = options;
  for (const fs::path& dir : class_dirs) {
    const std::vector<fs::path> files = images_in(dir, options);
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
  auto labels_copy = std::make_shared<const std::vector<int64_t>>(labels);
  return image_dataset(paths, options.channels, [labels_copy](int64_t i) {
    return std::vector<Tensor>{scalar_tensor(static_cast<double>((*labels_copy)[i]), kInt64)};
  });
}

ImageFiles image_files(const std::string& root, const ImageFolderOptions& options, bool recursive) {
  check_options("image_files", root, options);
  std::vector<fs::path> dirs{root};
  if (recursive)
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
      if (hidden(it->path()))
        it.disable_recursion_pending();  // nothing under a hidden folder either
      else if (it->is_directory())
        dirs.push_back(it->path());
    }
  ImageFiles files;
  files.options = options;
  for (const fs::path& dir : dirs)
    for (const fs::path& f : images_in(dir, options)) files.paths.push_back(f.string());
  std::sort(files.paths.begin(), files.paths.end());
  std::string endings;
  for (const std::string& e : options.extensions) endings += (endings.empty() ? "" : " ") + e;
  STRATA_CHECK(!files.paths.empty(), "image_files: no images in ", root, recursive ? " or its sub-folders" : "",
               " (files ending in ", endings, ")");
  return files;
}

Dataset ImageFiles::dataset() const {
  return image_dataset(paths, options.channels, [](int64_t) { return std::vector<Tensor>{}; });
}

}  // namespace strata::data
