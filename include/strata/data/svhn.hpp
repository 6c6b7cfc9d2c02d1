// The Street View House Numbers, cropped digits (ufldl.stanford.edu/housenumbers): the MATLAB
// files train_32x32.mat, test_32x32.mat and extra_32x32.mat, as TensorLayer's load_cropped_svhn
// returns them (images first, the label 10 of the digit 0 made 0). Read through data/mat_file.hpp.
#pragma once
#include <string>

#include "strata/core/tensor.hpp"

namespace strata::data {

struct SvhnSplit {
  Tensor images;  // uint8 [N, 32, 32, 3] (TensorLayer divides by 255 into float64)
  Tensor labels;  // int64 [N], 0..9
};

// One file: X uint8 [H, W, C, N] and y [N, 1] (1..10). Errors name the file and what was wrong
// (a missing variable, X and y disagreeing on N, a label outside 1..10).
SvhnSplit read_svhn_mat(const std::string& path);

struct SvhnCropped {
  SvhnSplit train, test;
};

// `dir` (TensorLayer's data/cropped_svhn) holds train_32x32.mat and test_32x32.mat, and
// extra_32x32.mat when include_extra (its 531,131 images are appended to train, as TensorLayer
// does). A missing file is an error naming it; nothing is downloaded.
SvhnCropped load_svhn_cropped(const std::string& dir, bool include_extra = true);

}  // namespace strata::data
