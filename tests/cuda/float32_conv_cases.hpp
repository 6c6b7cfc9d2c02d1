// float32 convolutions in 1, 2 and 3 dimensions with strides, dilations, groups, symmetric padding,
// bias, fused relu and a strided input: every case the cuDNN path takes. Run through the host
// stand-in (test_emulated_cudnn.cpp) and on a GPU (test_cuda_device.cpp), against the CPU.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ops/conformance.hpp"
#include "strata/strata.hpp"

namespace strata::testing {

inline Tensor rand32(Generator& gen, const Shape& shape) { return cast(rand64(gen, shape, -1, 1), kFloat32); }

struct ConvCase {
  std::string what;
  std::vector<Tensor> inputs;
  std::function<Tensor(const std::vector<Tensor>&)> run;
};

inline std::vector<ConvCase> float32_conv_cases(Generator& gen) {
  return {
      {"conv1d, stride 2, dilation 2, groups 2, bias",
       {rand32(gen, {2, 11, 4}), rand32(gen, {3, 2, 6}), rand32(gen, {6})},
       [](const std::vector<Tensor>& t) { return conv1d(t[0], t[1], t[2], {.stride = {2}, .dilation = {2}, .groups = 2}); }},
      {"conv2d 3x3 SAME, bias, fused relu",
       {rand32(gen, {3, 7, 6, 5}), rand32(gen, {3, 3, 5, 4}), rand32(gen, {4})},
       [](const std::vector<Tensor>& t) { return conv2d(t[0], t[1], t[2], {.padding = Padding::same(), .fuse_relu = true}); }},
      {"conv2d 5x3, stride (2, 1), explicit symmetric padding, no bias",
       {rand32(gen, {2, 9, 8, 3}), rand32(gen, {5, 3, 3, 6})},
       [](const std::vector<Tensor>& t) {
         return conv2d(t[0], t[1], Tensor(), {.stride = {2, 1}, .padding = Padding::explicit_({2, 1}, {2, 1})});
       }},
      {"conv2d depthwise (groups = channels)",
       {rand32(gen, {2, 6, 6, 4}), rand32(gen, {3, 3, 1, 8})},
       [](const std::vector<Tensor>& t) { return conv2d(t[0], t[1], Tensor(), {.padding = Padding::same(), .groups = 4}); }},
      {"conv3d 2x3x2",
       {rand32(gen, {2, 4, 5, 4, 3}), rand32(gen, {2, 3, 2, 3, 2}), rand32(gen, {2})},
       [](const std::vector<Tensor>& t) { return conv3d(t[0], t[1], t[2]); }},
      {"conv2d on a transposed (strided) input",
       {rand32(gen, {2, 3, 7, 7}), rand32(gen, {3, 3, 3, 2})},
       [](const std::vector<Tensor>& t) { return conv2d(t[0].permute({0, 2, 3, 1}), t[1]); }},
  };
}

}  // namespace strata::testing
