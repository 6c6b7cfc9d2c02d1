// CIFAR-10 and CIFAR-100 in their binary form: records of label byte(s) then 3072 pixel bytes
// (1024 red, 1024 green, 1024 blue, each 32x32 row-major), read into HWC images.
#pragma once
#include <string>

#include "strata/core/tensor.hpp"

namespace strata::data {

struct CifarBatch {
  Tensor images;         // uint8 [N, 32, 32, 3] (HWC, TensorLayer's layout)
  Tensor labels;         // uint8 [N]: 0..9 for CIFAR-10, the fine label 0..99 for CIFAR-100
  Tensor coarse_labels;  // uint8 [N] 0..19 for CIFAR-100; undefined for CIFAR-10
};

// One binary batch file (data_batch_1.bin, test_batch.bin; train.bin, test.bin for CIFAR-100).
// Throws strata::Error naming the file when it is missing, its size is not a whole number of
// records, or a label is out of range.
CifarBatch read_cifar10(const std::string& path);
CifarBatch read_cifar100(const std::string& path);

// The five training batches of CIFAR-10 joined, and the test batch, from the directory that
// holds data_batch_{1..5}.bin and test_batch.bin (cifar-10-batches-bin).
struct Cifar10 {
  CifarBatch train, test;
};
Cifar10 load_cifar10(const std::string& dir);

}  // namespace strata::data
