// Image folders: root/<class name>/<image file>, one sub-folder per class (Keras'
// image_dataset_from_directory, torchvision's ImageFolder), as a Dataset of (image, label); and
// flat folders of unlabelled images (GAN and super-resolution data, e.g. CelebA's img_align_celeba).
#pragma once
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"

namespace strata::data {

struct ImageFolderOptions {
  // Channels of every decoded image (see image_codec.hpp): 0 keeps each file's own, so a folder
  // mixing gray and colour files only batches with 1, 3 or 4 here.
  int channels = 0;
  // File name endings taken as images (compared without case); other files are ignored.
  std::vector<std::string> extensions = {".png", ".jpg", ".jpeg"};
};

// The files are listed once, at construction; images are decoded when an example is read.
struct ImageFolder {
  std::vector<std::string> classes;  // the sub-folder names, sorted; label i is classes[i]
  std::vector<std::string> paths;    // the image files, by class then by file name
  std::vector<int64_t> labels;       // labels[k] is the class of paths[k]
  ImageFolderOptions options;

  // Example k: {uint8 [H, W, C] image, int64 scalar label}. Reading an unreadable or corrupt
  // file throws strata::Error naming it. Cache it (dataset().cache(path)) to decode once.
  Dataset dataset() const;
};

// Throws strata::Error when `root` is not a directory or holds no class folder with an image.
ImageFolder image_folder(const std::string& root, const ImageFolderOptions& options = {});

// A folder of images with no classes: root/<image file> (and, with `recursive`, images in its
// sub-folders at any depth), as a Dataset of (image).
struct ImageFiles {
  std::vector<std::string> paths;  // sorted by path
  ImageFolderOptions options;

  // Example k: {uint8 [H, W, C] image}, decoded when read; errors name the file.
  Dataset dataset() const;
};

// Throws strata::Error when `root` is not a directory or holds no image. Hidden files and
// folders (a leading '.') are skipped, as by image_folder.
ImageFiles image_files(const std::string& root, const ImageFolderOptions& options = {}, bool recursive = false);

}  // namespace strata::data
