// TensorLayer's image data sets from files a user already has (nothing is downloaded; a
// missing file or folder is an error naming the path expected): CelebA, MIRFLICKR-25000 and
// MIRFLICKR-1M by tag, CycleGAN's folders, and the ImageNet class names. They return image
// paths in a fixed order (TensorLayer decodes them all at once; data::read_image(path, 3) reads
// one as TensorLayer's RGB array, data/image_folder.hpp makes a Dataset of a folder).
#pragma once
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

// Sorts names as TensorLayer's natural_keys does: runs of digits compare as numbers
// ("im2.jpg" before "im10.jpg"), the rest as text.
bool natural_less(const std::string& a, const std::string& b);

struct CelebA {
  std::vector<std::string> images;           // <dir>/*.jpg, sorted by name
  std::vector<std::string> attribute_names;  // the attribute file's second line (40 in CelebA)
  std::vector<std::string> attribute_files;  // the image named by each attribute row
  Tensor attributes;                         // int32 [rows, names] of -1 / 1; undefined without the file
};
// `image_dir` is TensorLayer's data/celebA (img_align_celeba's images). `attribute_file`
// (list_attr_celeba.txt: a count, the names, then "<file> v1 v2 ..." rows) is read when given;
// its count, every row's length and every value (-1 or 1) are checked, errors naming the line.
CelebA load_celeba(const std::string& image_dir, const std::string& attribute_file = "");

// MIRFLICKR-25000 under `dir` (TensorLayer's data/flickr25k): mirflickr/im<k>.jpg and
// mirflickr/meta/tags/tags<k>.txt, paired in natural order; the images one of whose tag lines is
// `tag` (every image when tag is empty). Unequal numbers of images and tag files are an error.
std::vector<std::string> load_flickr25k(const std::string& dir, const std::string& tag = "sky");

// MIRFLICKR-1M under `dir` (data/flickr1M): images<i>/<folder>/<n>.jpg for i < size (1..10, a
// tenth of the images each) and tags/<folder>/<n>.txt; the first size * 10 folders of each, in
// numeric order, paired file by file; the images with a tag line equal to `tag`.
std::vector<std::string> load_flickr1m(const std::string& dir, const std::string& tag = "sky", int size = 10);

struct CycleGanFolders {
  std::vector<std::string> train_a, train_b, test_a, test_b;  // *.jpg paths, sorted by name
};
// <dir>/<name>/{trainA,trainB,testA,testB} (data/cyclegan/summer2winter_yosemite and the others
// of the CycleGAN release). TensorLayer turns grey images into three channels: read_image(p, 3).
CycleGanFolders load_cyclegan(const std::string& dir, const std::string& name = "summer2winter_yosemite");

// The 1000 ILSVRC-2012 class names by label (TensorLayer's models.imagenet_classes.class_names).
const std::vector<std::string>& imagenet_classes();

}  // namespace strata::data
