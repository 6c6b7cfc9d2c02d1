// IDX files (the format of MNIST and Fashion-MNIST), plain or gzip-compressed, read into tensors;
// and the Fashion-MNIST data set built on them.
#pragma once
#include <array>
#include <string>

#include "strata/core/tensor.hpp"

namespace strata::data {

// Reads one IDX file: two zero bytes, a type code, a dimension count, big-endian int32 sizes,
// then big-endian data. The tensor's dtype follows the type code: 0x08 -> uint8, 0x0C -> int32,
// 0x0D -> float32, 0x0E -> float64; signed 8- and 16-bit data (0x09, 0x0B) widen to int32.
// gzip-compressed files are recognised by their contents, whatever their name.
// Throws strata::Error naming the file for a missing file, a bad magic number or type code,
// sizes that overflow, and data shorter or longer than the sizes say.
Tensor read_idx(const std::string& path);

// The four tensors of Fashion-MNIST: images uint8 [N, 28, 28] (0 = background), labels uint8 [N]
// in 0..9; N is 60000 for train and 10000 for test.
struct FashionMnist {
  Tensor train_images, train_labels, test_images, test_labels;
};

// Fashion-MNIST's ten labels, 0 to 9, as the dataset's README names them.
inline constexpr std::array<const char*, 10> kFashionMnistClassNames = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};

// Loads Fashion-MNIST from `dir`, which holds train-images-idx3-ubyte(.gz), train-labels-idx1-ubyte(.gz),
// t10k-images-idx3-ubyte(.gz) and t10k-labels-idx1-ubyte(.gz). An empty `dir` means Debian's
// dataset-fashion-mnist package (/usr/share/datasets/fashion-mnist). Throws strata::Error when a
// file is missing or images and labels disagree (shape, count, label range).
FashionMnist load_fashion_mnist(const std::string& dir = "");

// Where load_fashion_mnist("") looks.
inline constexpr const char* kFashionMnistDebianDir = "/usr/share/datasets/fashion-mnist";

}  // namespace strata::data
