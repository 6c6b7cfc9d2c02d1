// Point-cloud data sets read from the folders their authors publish, as data::Datasets of
// fixed-size clouds: ModelNet's meshes (sampled over their surface) and ShapeNet-Part's
// segmented clouds. The files are listed once, at construction; each is read when its example
// is. An example depends only on (seed, index), so a data set reads the same in any order and on
// any number of threads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"

namespace strata::points {

// ModelNet10/40 as Princeton ships it: <root>/<class>/{train,test}/<model>.off.
struct ModelNetFolder {
  std::vector<std::string> classes;  // the class folders, sorted; label i is classes[i]
  std::vector<std::string> paths;    // the split's .off files, by class then by name
  std::vector<int64_t> labels;       // labels[k] is the class of paths[k]
  int64_t points_per_cloud = 0;
  uint64_t seed = 0;

  // Example k: {float32 [P, 3] points sampled uniformly over the mesh's surface
  // (sample_surface), int64 scalar label}. A file that cannot be read, or has no faces, throws
  // strata::Error naming it.
  data::Dataset dataset() const;
};

// `split` is "train" or "test". Classes are every non-hidden folder of root, whether or not it
// has files in this split, so that labels agree between the splits. Throws strata::Error when
// root is not a folder, the split is neither, or no .off file is found.
ModelNetFolder modelnet_folder(const std::string& root, const std::string& split, int64_t points_per_cloud,
                               uint64_t seed = 0);

// ShapeNet-Part (shapenetcore_partanno_segmentation_benchmark_v0_normal): <root>/<synset>/<model>.txt
// with lines "x y z nx ny nz part", <root>/synsetoffset2category.txt ("<Name> <synset>" lines)
// and <root>/train_test_split/shuffled_{train,val,test}_file_list.json (entries
// "shape_data/<synset>/<model>").
struct ShapeNetPartFolder {
  std::vector<std::string> categories;  // from synsetoffset2category.txt, sorted; label i is categories[i]
  std::vector<std::string> synsets;     // synsets[i] is the folder of categories[i]
  std::vector<std::string> paths;       // the split's files, in the list's order
  std::vector<int64_t> labels;          // labels[k] is the category of paths[k]
  int64_t points_per_cloud = 0;
  uint64_t seed = 0;

  // Example k: {float32 [P, 3] points, int64 [P] part labels (the data set's 50 global part ids),
  // int64 scalar category label}. A file with more than P points gives a random subset, one with
  // fewer all of them and random repeats (as RaggedClouds' to_fixed).
  data::Dataset dataset() const;
};

// `split` is "train", "val" or "test". Throws strata::Error naming the file for a missing or
// malformed category or list file, and for a list entry that is not "shape_data/<synset>/<model>"
// with a known synset (names with '/' or "..", which could leave root, included).
ShapeNetPartFolder shapenet_part_folder(const std::string& root, const std::string& split, int64_t points_per_cloud,
                                        uint64_t seed = 0);

}  // namespace strata::points
