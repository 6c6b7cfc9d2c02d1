// The CUDA backend's normalization, pooling and recurrent-cell kernels (norm.cu, pool.cu, rnn.cu),
// emulated, against the CPU's, outputs and gradients, beyond the conformance table's small float64
// cases: batch norm over more rows than one block of its two-pass sums (training, without beta,
// strided, and eval with running statistics), layer norm with many rows and with long rows; max
// pooling over ties (which element gets the gradient) and over negative values with padding
// (padding must not win), average pooling with padding, in 1, 2 and 3 dimensions; LSTM and GRU
// cells of several units. Each case in float64 and float32.
#include <gtest/gtest.h>

#include "cuda/emulated_compare.hpp"

namespace strata::testing {
namespace {

std::vector<OpCase> cases(Generator& gen) {
  const Tensor ties = round(rand64(gen, {2, 6, 7, 3}, -2, 2));
  const Tensor negative = rand64(gen, {2, 5, 5, 2}, -3, -1);
  const PoolOptions padded{.stride = {2, 1}, .padding = Padding::explicit_({1, 1}, {1, 0})};
  return {
      {"batch_norm", {rand64(gen, {700, 3}, -2, 2), rand64(gen, {3}, 0.5, 1.5), rand64(gen, {3})},
       [](const Tensors& in) { return batch_norm(in[0], in[1], in[2], Tensor(), Tensor(), true); }, "700 rows"},
      {"batch_norm", {noncontiguous64(gen, {3, 200, 5}, -2, 2), rand64(gen, {5}, 0.5, 1.5)},
       [](const Tensors& in) { return batch_norm(in[0], in[1], Tensor(), Tensor(), Tensor(), true); },
       "strided, no beta"},
      {"batch_norm", {rand64(gen, {300, 4}, -2, 2), rand64(gen, {4}, 0.5, 1.5), rand64(gen, {4})},
       [](const Tensors& in) {
         const Tensor mean = full({4}, 0.3, in[0].dtype()), var = full({4}, 1.7, in[0].dtype());
         return batch_norm(in[0], in[1], in[2], mean, var, false);
       },
       "eval"},
      {"layer_norm", {rand64(gen, {600, 7}, -2, 2), rand64(gen, {7}, 0.5, 1.5), rand64(gen, {7})},
       [](const Tensors& in) { return layer_norm(in[0], {7}, in[1], in[2]); }, "600 rows"},
      {"layer_norm", {noncontiguous64(gen, {4, 1100}, -2, 2), rand64(gen, {1100}, 0.5, 1.5)},
       [](const Tensors& in) { return layer_norm(in[0], {1100}, in[1], Tensor()); }, "rows of 1100, strided"},
      {"max_pool2d", {ties},
       [](const Tensors& in) { return max_pool2d(in[0], {3}, {.stride = {1}, .padding = Padding::same()}); }, "ties"},
      {"max_pool2d", {negative}, [=](const Tensors& in) { return max_pool2d(in[0], {3, 2}, padded); },
       "negative values, padding"},
      {"avg_pool2d", {negative}, [=](const Tensors& in) { return avg_pool2d(in[0], {3, 2}, padded); }, "padding"},
      {"max_pool3d", {round(rand64(gen, {1, 5, 4, 6, 3}, -2, 2))},
       [](const Tensors& in) {
         return max_pool3d(in[0], {3, 2, 3}, {.stride = {2, 1, 2}, .padding = Padding::same()});
       },
       "ties"},
      {"avg_pool1d", {noncontiguous64(gen, {3, 11, 4})},
       [](const Tensors& in) { return avg_pool1d(in[0], {4}, {.stride = {3}, .padding = Padding::same()}); },
       "strided"},
      // Both cell outputs reach the loss.
      {"lstm_cell", {rand64(gen, {5, 28}, -3, 3), rand64(gen, {5, 28}, -3, 3), rand64(gen, {5, 7}, -2, 2)},
       [](const Tensors& in) {
         const auto hc = lstm_cell(in[0], in[1], in[2]);
         return hc[0] * 2 + hc[1];
       },
       "7 units"},
      {"gru_cell", {rand64(gen, {4, 21}, -3, 3), rand64(gen, {4, 21}, -3, 3), rand64(gen, {4, 7}, -2, 2)},
       [](const Tensors& in) { return gru_cell(in[0], in[1], in[2]); }, "7 units"},
  };
}

Tensors float32(const Tensors& inputs) {
  Tensors out;
  for (const Tensor& t : inputs) out.push_back(t.to(kFloat32));
  return out;
}

TEST(EmulatedNormPoolRnn, RunsTheCudaKernels) {
  install_emulated_cuda();
  STRATA_CUDA_NORM_STUBS(STRATA_EXPECT_CUDA_KERNEL)
  STRATA_CUDA_POOL_STUBS(STRATA_EXPECT_CUDA_KERNEL)
  STRATA_CUDA_RNN_STUBS(STRATA_EXPECT_CUDA_KERNEL)
}

TEST(EmulatedNormPoolRnn, LargerCasesMatchTheCpuWithGradients) {
  Generator gen(7);
  for (const OpCase& c : cases(gen)) {
    expect_same_as_cpu(c.op + " " + c.label + " float64", c.inputs, c.fn, Grads::yes);
    expect_same_as_cpu(c.op + " " + c.label + " float32", float32(c.inputs), c.fn, Grads::yes);
  }
}

}  // namespace
}  // namespace strata::testing
