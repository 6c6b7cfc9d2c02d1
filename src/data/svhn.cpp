#include "strata/data/svhn.hpp"

#include <filesystem>

#include "strata/core/error.hpp"
#include "strata/data/mat_file.hpp"
#include "strata/ops/combine.hpp"

namespace strata::data {

SvhnSplit read_svhn_mat(const std::string& path) {
  STRATA_CHECK(std::filesystem::is_regular_file(path), "SVHN: expected the file ", path,
               " (from ufldl.stanford.edu/housenumbers; nothing is downloaded)");
  const MatFile mat = read_mat(path);
  const MatValue& x = mat.at("X");
  const MatValue& y = mat.at("y");
  STRATA_CHECK(x.kind == MatValue::Kind::numeric && x.array.dtype() == kUInt8 && x.dims.size() == 4, "SVHN ", path,
               ": X must be uint8 [H, W, C, N], came ", x.class_name, " with ", x.dims.size(), " dimensions");
  const int64_t n = x.dims[3];
  STRATA_CHECK(y.kind == MatValue::Kind::numeric && y.numel() == n, "SVHN ", path,
               ": y must hold one label per image (", n, "), came ", y.class_name, " with ", y.numel(), " elements");
  SvhnSplit split;
  split.images = x.array.permute({3, 0, 1, 2}).contiguous();
  std::vector<int64_t> labels;
  labels.reserve(n);
  for (double v : y.array.to_vector<double>()) {
    STRATA_CHECK(v >= 1 && v <= 10 && v == int64_t(v), "SVHN ", path, ": label ", v, " is not 1..10");
    labels.push_back(v == 10 ? 0 : int64_t(v));  // the file's 10 is the digit 0
  }
  split.labels = Tensor::empty({n}, kInt64);
  std::copy(labels.begin(), labels.end(), split.labels.data<int64_t>());
  return split;
}

SvhnCropped load_svhn_cropped(const std::string& dir, bool include_extra) {
  const std::filesystem::path root(dir);
  SvhnCropped svhn{read_svhn_mat((root / "train_32x32.mat").string()),
                   read_svhn_mat((root / "test_32x32.mat").string())};
  if (include_extra) {
    SvhnSplit extra = read_svhn_mat((root / "extra_32x32.mat").string());
    svhn.train.images = concat({svhn.train.images, extra.images}, 0);
    svhn.train.labels = concat({svhn.train.labels, extra.labels}, 0);
  }
  return svhn;
}

}  // namespace strata::data
