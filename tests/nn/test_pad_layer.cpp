#include <gtest/gtest.h>

#include <functional>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

// Source index of padded position i (in [-before, n + after)) on an axis of size n.
int64_t reflect_index(int64_t i, int64_t n) { return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i); }
int64_t symmetric_index(int64_t i, int64_t n) { return i < 0 ? -i - 1 : (i >= n ? 2 * n - 1 - i : i); }
int64_t replicate_index(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// A 2-D padding by a loop; index < 0 from `map` means the constant.
Tensor pad_loop(const Tensor& x, int64_t b0, int64_t a0, int64_t b1, int64_t a1,
                const std::function<int64_t(int64_t, int64_t)>& map, double value) {
  const int64_t n = x.size(0), m = x.size(1), h = n + b0 + a0, w = m + b1 + a1;
  std::vector<double> xv = x.to_vector<double>(), out(h * w);
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) {
      int64_t si = map(i - b0, n), sj = map(j - b1, m);
      out[i * w + j] = (si < 0 || sj < 0) ? value : xv[si * m + sj];
    }
  return from_vector(out, {h, w});
}

TEST(PadLayerTest, ModesMatchIndexLoops) {
  Tensor x = randn({4, 5}, kFloat64);
  auto constant = [](int64_t i, int64_t n) { return i < 0 || i >= n ? -1 : i; };
  struct Case {
    nn::PadLayerMode mode;
    std::function<int64_t(int64_t, int64_t)> map;
  } cases[] = {{nn::PadLayerMode::constant, constant},
               {nn::PadLayerMode::reflect, reflect_index},
               {nn::PadLayerMode::symmetric, symmetric_index},
               {nn::PadLayerMode::replicate, replicate_index}};
  for (const Case& c : cases) {
    nn::PadLayer layer({{2, 1}, {3, 4}}, c.mode, 1.5);
    Tensor y = layer(x);
    EXPECT_EQ(y.shape(), Shape({7, 12}));
    EXPECT_TRUE(allclose(y, pad_loop(x, 2, 1, 3, 4, c.map, 1.5), 0, 0)) << static_cast<int>(c.mode);
    testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return layer(v[0]); }, {randn({4, 5}, kFloat64)});
    layer.eval();
    EXPECT_TRUE(allclose(layer(x), y, 0, 0));
  }
  // Fewer pairs than axes pad the last axes (here the batch axis is left alone).
  EXPECT_EQ(nn::PadLayer({{1, 1}, {0, 2}})(randn({2, 3, 4})).shape(), Shape({2, 5, 6}));
  testing_nn::expect_error([] { nn::PadLayer({{1, 1}, {1, 1}, {1, 1}}, nn::PadLayerMode::constant, 0, "p")(randn({2, 3})); },
                           {"p (padlayer)", "3 padding pairs", "[2, 3]"});
  testing_nn::expect_error([] { nn::pad_symmetric(randn({2, 3}), {{0, 4}}); }, {"pad_symmetric", "size 3", "{0, 4}"});
}

}  // namespace
}  // namespace strata
