#include "strata/data/tl_image_datasets.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "file_bytes.hpp"
#include "strata/core/error.hpp"

namespace strata::data {
namespace {

namespace fs = std::filesystem;

fs::path expect_folder(const fs::path& path, const char* what) {
  STRATA_CHECK(fs::is_directory(path), what, ": expected the folder ", path.string(), " (nothing is downloaded)");
  return path;
}

// The names of `folder`'s regular files ending in `suffix` (TensorLayer's load_file_list).
std::vector<std::string> files_ending(const fs::path& folder, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() >= suffix.size() && name.ends_with(suffix)) names.push_back(name);
  }
  return names;
}

std::vector<std::string> sorted_paths(const fs::path& folder, const std::string& suffix) {
  std::vector<std::string> names = files_ending(folder, suffix);
  std::sort(names.begin(), names.end());
  for (auto& n : names) n = (folder / n).string();
  return names;
}

// Whether one of the file's lines ('\n'-separated, as Python's split('\n')) is `tag`.
bool has_tag_line(const fs::path& file, const std::string& tag) {
  const std::vector<unsigned char> bytes = detail::read_file_bytes(file.string(), "Flickr tags");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  for (size_t start = 0;;) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (text.substr(start, end - start) == tag) return true;
    if (end == text.size()) return false;
    start = end + 1;
  }
}

// Folder and file names that TensorLayer sorts with int(): a name made only of digits.
int64_t numeric_name(const std::string& name, const fs::path& where) {
  STRATA_CHECK(!name.empty() && name.size() < 18 && std::all_of(name.begin(), name.end(), ::isdigit),
               "Flickr1M: ", where.string(), ": expected a number as the name, came '", name, "'");
  return std::stoll(name);
}

// The first `count` numbered sub-folders of `roots`, in numeric order; in each, the files
// "<n><suffix>" in numeric order.
std::vector<fs::path> numbered_files(const std::vector<fs::path>& roots, size_t count, const std::string& suffix) {
  std::vector<std::pair<int64_t, fs::path>> folders;
  for (const auto& root : roots)
    for (const auto& entry : fs::directory_iterator(expect_folder(root, "Flickr1M")))
      if (entry.is_directory())
        folders.emplace_back(numeric_name(entry.path().filename().string(), root), entry.path());
  std::sort(folders.begin(), folders.end());
  folders.resize(std::min(folders.size(), count));
  std::vector<fs::path> files;
  for (const auto& [n, folder] : folders) {
    std::vector<std::pair<int64_t, std::string>> numbered;
    for (const std::string& name : files_ending(folder, suffix))
      numbered.emplace_back(numeric_name(name.substr(0, name.size() - suffix.size()), folder), name);
    std::sort(numbered.begin(), numbered.end());
    for (const auto& [k, name] : numbered) files.push_back(folder / name);
  }
  return files;
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {  // compare the runs as numbers: without leading zeros, shorter is smaller
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string_view ra(a.data() + i, ei - i), rb(b.data() + j, ej - j);
      while (ra.size() > 1 && ra[0] == '0') ra.remove_prefix(1);
      while (rb.size() > 1 && rb[0] == '0') rb.remove_prefix(1);
      if (ra.size() != rb.size()) return ra.size() < rb.size();
      if (ra != rb) return ra < rb;
      i = ei, j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

CelebA load_celeba(const std::string& image_dir, const std::string& attribute_file) {
  CelebA celeba;
  celeba.images = sorted_paths(expect_folder(image_dir, "CelebA"), ".jpg");
  if (attribute_file.empty()) return celeba;
  STRATA_CHECK(fs::is_regular_file(attribute_file), "CelebA: expected the attribute file ", attribute_file);
  const std::vector<unsigned char> bytes = detail::read_file_bytes(attribute_file, "CelebA attributes");
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::string line;
  int64_t rows = -1;
  STRATA_CHECK(
      std::getline(in, line) && (std::istringstream(line) >> rows) && rows >= 0 && uint64_t(rows) <= bytes.size(),
      "CelebA ", attribute_file, ": line 1 must be the number of rows, came '", line, "'");
  STRATA_CHECK(std::getline(in, line), "CelebA ", attribute_file, ": line 2 must name the attributes");
  std::istringstream names(line);
  for (std::string name; names >> name;) celeba.attribute_names.push_back(name);
  const int64_t k = int64_t(celeba.attribute_names.size());
  std::vector<int32_t> values;
  for (int64_t r = 0; r < rows; ++r) {
    STRATA_CHECK(std::getline(in, line), "CelebA ", attribute_file, ": line 1 says ", rows, " rows, the file has ", r);
    std::istringstream row(line);
    std::string file;
    row >> file;
    celeba.attribute_files.push_back(file);
    int v = 0;
    for (int64_t c = 0; c < k; ++c) {
      STRATA_CHECK((row >> v) && (v == 1 || v == -1), "CelebA ", attribute_file, ": line ", r + 3, " (", file,
                   "): value ", c + 1, " of ", k, " must be -1 or 1");
      values.push_back(v);
    }
    STRATA_CHECK(!(row >> file), "CelebA ", attribute_file, ": line ", r + 3, " has more than ", k, " values");
  }
  celeba.attributes = Tensor::empty({rows, k}, kInt32);
  std::copy(values.begin(), values.end(), celeba.attributes.data<int32_t>());
  return celeba;
}

std::vector<std::string> load_flickr25k(const std::string& dir, const std::string& tag) {
  const fs::path images = expect_folder(fs::path(dir) / "mirflickr", "Flickr25k");
  const fs::path tags = expect_folder(images / "meta" / "tags", "Flickr25k");
  std::vector<std::string> image_names = files_ending(images, ".jpg"), tag_names = files_ending(tags, ".txt");
  STRATA_CHECK(image_names.size() == tag_names.size(), "Flickr25k: ", images.string(), " has ", image_names.size(),
               " images and ", tags.string(), " ", tag_names.size(), " tag files; they pair one to one");
  std::sort(image_names.begin(), image_names.end(), natural_less);
  std::sort(tag_names.begin(), tag_names.end(), natural_less);
  std::vector<std::string> selected;
  for (size_t i = 0; i < image_names.size(); ++i)
    if (tag.empty() || has_tag_line(tags / tag_names[i], tag)) selected.push_back((images / image_names[i]).string());
  return selected;
}

std::vector<std::string> load_flickr1m(const std::string& dir, const std::string& tag, int size) {
  STRATA_CHECK(size >= 1 && size <= 10, "Flickr1M: size is 1..10 (tenths of the million images), came ", size);
  const fs::path root(dir);
  std::vector<fs::path> image_roots;
  for (int i = 0; i < size; ++i) image_roots.push_back(root / ("images" + std::to_string(i)));
  const std::vector<fs::path> images = numbered_files(image_roots, size_t(size) * 10, ".jpg");
  const std::vector<fs::path> tags = numbered_files({root / "tags"}, size_t(size) * 10, ".txt");
  STRATA_CHECK(images.size() == tags.size(), "Flickr1M: ", images.size(), " images and ", tags.size(),
               " tag files in the first ", size * 10, " folders; they pair one to one");
  std::vector<std::string> selected;
  for (size_t i = 0; i < images.size(); ++i)
    if (has_tag_line(tags[i], tag)) selected.push_back(images[i].string());
  return selected;
}

CycleGanFolders load_cyclegan(const std::string& dir, const std::string& name) {
  const fs::path root = expect_folder(fs::path(dir) / name, "CycleGAN");
  auto part = [&](const char* folder) { return sorted_paths(expect_folder(root / folder, "CycleGAN"), ".jpg"); };
  return {part("trainA"), part("trainB"), part("testA"), part("testB")};
}

const std::vector<std::string>& imagenet_classes() {
  static const std::vector<std::string> names = {
#include "imagenet_classes.inc"
  };
  return names;
}

}  // namespace strata::data
