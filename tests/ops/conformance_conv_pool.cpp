// Gradient conformance cases for the convolution and pooling ops (float64: the plain loops).
#include "ops/conformance.hpp"

namespace strata::testing {

STRATA_CONFORMANCE_CASES(conv_pool) {
  auto r = [&](const Shape& s) { return rand64(gen, s); };
  ConvOptions same2{.stride = {2}, .padding = Padding::same()};
  return {
      OpCase{"conv1d", {r({2, 5, 2}), r({3, 2, 3}), r({3})},
             [](const std::vector<Tensor>& t) { return conv1d(t[0], t[1], t[2]); }},
      OpCase{"conv1d", {r({1, 7, 4}), r({2, 2, 2})},
             [](const std::vector<Tensor>& t) {
               return conv1d(t[0], t[1], Tensor(), {.stride = {2}, .padding = Padding::same(), .dilation = {2}, .groups = 2});
             },
             "strided dilated grouped SAME"},
      OpCase{"conv2d", {r({1, 4, 4, 2}), r({3, 3, 2, 2}), r({2})},
             [=](const std::vector<Tensor>& t) { return conv2d(t[0], t[1], t[2], same2); }, "strided SAME"},
      OpCase{"conv2d", {noncontiguous64(gen, {2, 3, 3, 2}), r({2, 2, 1, 4})},
             [](const std::vector<Tensor>& t) {
               return conv2d(t[0], t[1], Tensor(), {.padding = Padding::explicit_({1, 0}, {0, 1}), .groups = 2});
             },
             "non-contiguous, grouped, explicit padding"},
      OpCase{"conv2d", {r({2, 4, 4, 3}), r({3, 3, 3, 4}), r({4})},
             [](const std::vector<Tensor>& t) {
               return conv2d(t[0], t[1], t[2], {.padding = Padding::same(), .fuse_relu = true});
             },
             "fused relu"},
      OpCase{"conv3d", {r({1, 3, 3, 2, 2}), r({2, 2, 1, 2, 2}), r({2})},
             [](const std::vector<Tensor>& t) { return conv3d(t[0], t[1], t[2], {.padding = Padding::same()}); }},
      OpCase{"conv_transpose1d", {r({2, 3, 2}), r({3, 2, 2}), r({2})},
             [](const std::vector<Tensor>& t) { return conv_transpose1d(t[0], t[1], t[2], {.stride = {2}}); }},
      OpCase{"conv_transpose2d", {r({1, 2, 3, 2}), r({3, 3, 2, 2}), r({2})},
             [=](const std::vector<Tensor>& t) { return conv_transpose2d(t[0], t[1], t[2], same2); }, "strided SAME"},
      OpCase{"conv_transpose3d", {r({1, 2, 2, 1, 2}), r({2, 2, 2, 1, 2})},
             [](const std::vector<Tensor>& t) {
               return conv_transpose3d(t[0], t[1], Tensor(), {.stride = {1, 2, 1}, .padding = Padding::same()});
             }},
      OpCase{"max_pool1d", {r({2, 7, 2})},
             [](const std::vector<Tensor>& t) { return max_pool1d(t[0], {3}, {.stride = {2}, .padding = Padding::same()}); }},
      OpCase{"max_pool2d", {noncontiguous64(gen, {2, 4, 4, 2})},
             [](const std::vector<Tensor>& t) { return max_pool2d(t[0], {2}, {.padding = Padding::same()}); },
             "non-contiguous SAME"},
      OpCase{"max_pool3d", {r({1, 3, 4, 3, 2})},
             [](const std::vector<Tensor>& t) { return max_pool3d(t[0], {2, 2, 3}, {.stride = {1}}); }},
      OpCase{"avg_pool1d", {r({2, 7, 2})},
             [](const std::vector<Tensor>& t) { return avg_pool1d(t[0], {3}, {.stride = {2}, .padding = Padding::same()}); }},
      OpCase{"avg_pool2d", {r({1, 5, 5, 2})},
             [](const std::vector<Tensor>& t) { return avg_pool2d(t[0], {3}, {.stride = {2}, .padding = Padding::same()}); },
             "SAME, padding excluded"},
      OpCase{"avg_pool3d", {r({1, 3, 4, 3, 2})},
             [](const std::vector<Tensor>& t) { return avg_pool3d(t[0], {2}, {.stride = {1}}); }},
  };
}

}  // namespace strata::testing
