// TensorLayer 2's DeConv1dLayer (nn/layers/conv.hpp): tf.nn.conv1d_transpose with the filter
// [k, out, in], checked against a plain loop of its definition (the adjoint of a SAME or VALID
// conv1d of the same stride), its weight layout, bias and activation, and its errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

// x [N, W, C], w [k, O, C] -> [N, L, O]: every input position i spreads x[i]·w[j] to output
// position i·stride + j - pad_left, with L and pad_left as TensorFlow's SAME / VALID give them.
std::vector<double> conv1d_transpose_loop(const std::vector<double>& x, const std::vector<double>& w, int64_t N,
                                          int64_t W, int64_t C, int64_t k, int64_t O, int64_t stride, bool same,
                                          int64_t* length) {
  const int64_t L = same ? W * stride : (W - 1) * stride + k;
  const int64_t pad_left = same ? std::max<int64_t>((W - 1) * stride + k - L, 0) / 2 : 0;
  std::vector<double> out(N * L * O, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < W; ++i)
      for (int64_t j = 0; j < k; ++j) {
        const int64_t p = i * stride + j - pad_left;
        if (p < 0 || p >= L) continue;
        for (int64_t o = 0; o < O; ++o)
          for (int64_t c = 0; c < C; ++c) out[(n * L + p) * O + o] += x[(n * W + i) * C + c] * w[(j * O + o) * C + c];
      }
  *length = L;
  return out;
}

TEST(DeConv1dLayerTest, MatchesTheTransposedConvolutionsDefinition) {
  struct Case {
    Shape shape;  // [k, out, in]
    ConvOptions options;
    int64_t stride;
    bool same;
  };
  const Case cases[] = {{{3, 4, 2}, nn::same_padding(2), 2, true},
                        {{4, 3, 2}, ConvOptions{.stride = {3}}, 3, false},
                        {{5, 2, 2}, ConvOptions{.stride = {2}, .padding = Padding::same()}, 2, true},
                        {{2, 3, 2}, ConvOptions{.stride = {1}, .padding = Padding::same()}, 1, true}};
  for (const Case& c : cases) {
    nn::DeConv1dLayer layer(c.shape, "relu", c.options);
    const Tensor x = randn({2, 5, 2});
    layer(x);
    testing_nn::randomize(layer, 3);
    EXPECT_EQ(layer.W.shape(), c.shape);  // TensorFlow's [k, out, in]
    EXPECT_EQ(layer.b.shape(), Shape({c.shape[1]}));
    int64_t length = 0;
    std::vector<double> want = conv1d_transpose_loop(x.to_vector<double>(), layer.W.to_vector<double>(), 2, 5, 2,
                                                     c.shape[0], c.shape[1], c.stride, c.same, &length);
    const std::vector<double> b = layer.b.to_vector<double>();
    for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0, want[i] + b[i % b.size()]);
    const Tensor y = layer(x);
    ASSERT_EQ(y.shape(), Shape({2, length, c.shape[1]})) << c.shape.str();
    const std::vector<double> got = y.to_vector<double>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << c.shape.str() << " at " << i;
  }
}

TEST(DeConv1dLayerTest, OptionsGradientsAndErrors) {
  nn::DeConv1dLayer layer({3, 6, 4}, {}, nn::same_padding(2), "up", /*use_bias=*/false);
  EXPECT_EQ(layer.options().n_filter, 6);
  EXPECT_EQ(layer.options().in_channels, 4);
  EXPECT_EQ(layer.options().filter_size, SpatialSizes({3}));
  EXPECT_EQ(layer(randn({1, 7, 4})).shape(), Shape({1, 14, 6}));
  EXPECT_FALSE(layer.b.defined());
  // TensorLayer's defaults: shape (3, 128, 256), strides (1, 2, 1), SAME.
  const nn::DeConv1dLayerOptions defaults;
  EXPECT_EQ(defaults.filter_size, SpatialSizes({3}));
  testing_nn::expect_gradcheck(
      [](const std::vector<Tensor>& v) { return conv_transpose1d(v[0], v[1], v[2], nn::same_padding(2)); },
      {randn({1, 4, 2}, kFloat64), randn({3, 3, 2}, kFloat64), randn({3}, kFloat64)});
  testing_nn::expect_error([&] { layer(randn({1, 7, 5})); }, {"up", "[1, 7, 5]"});
  testing_nn::expect_error([] { nn::DeConv1dLayer({3, 4}); }, {"deconv1dlayer", "3 values", "out, in"});
}

}  // namespace
}  // namespace strata
