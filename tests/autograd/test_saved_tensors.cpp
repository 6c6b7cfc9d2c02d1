// What a node keeps alive: only what its gradient formula reads (Flashlight's withoutData()).
#include <gtest/gtest.h>

#include "strata/strata.hpp"

namespace strata {
namespace {

using UnaryFn = Tensor (*)(const Tensor&);

// Runs `op` on a large intermediate h = 2x, drops h, and reports whether its storage is still
// alive (held by op's node). The gradient must match the one computed while h was kept.
bool intermediate_survives(UnaryFn op) {
  Tensor x = uniform({512, 512}, 0.5, 1.5, kFloat64).requires_grad_();
  Tensor want = autograd::grad({sum(op(x * 2.0))}, {x})[0];
  Tensor h = x * 2.0;  // mul by a constant keeps the constant, not x
  std::weak_ptr<Storage> h_storage = h.impl()->storage;
  Tensor y = op(h);
  h = Tensor();
  const bool survives = !h_storage.expired();
  sum(y).backward();
  EXPECT_TRUE(allclose(x.grad(), want));
  return survives;
}

TEST(SavedTensorsTest, FormulasInTheOutputFreeTheInput) {
  for (UnaryFn op : {UnaryFn([](const Tensor& t) { return exp(t); }), UnaryFn([](const Tensor& t) { return relu(t); }),
                     UnaryFn([](const Tensor& t) { return sigmoid(t); }),
                     UnaryFn([](const Tensor& t) { return softmax(t); })})
    EXPECT_FALSE(intermediate_survives(op));
}

TEST(SavedTensorsTest, FormulasInTheInputKeepIt) {
  EXPECT_TRUE(intermediate_survives([](const Tensor& t) { return log(t); }));
  EXPECT_TRUE(intermediate_survives([](const Tensor& t) { return sin(t); }));
}

TEST(SavedTensorsTest, AdditionAndReductionsKeepNoOperand) {
  EXPECT_FALSE(intermediate_survives([](const Tensor& t) { return t + 1.0; }));
  EXPECT_FALSE(intermediate_survives([](const Tensor& t) { return sum(t, {1}); }));
  EXPECT_FALSE(intermediate_survives([](const Tensor& t) { return mean(t, {0}); }));
}

TEST(SavedTensorsTest, AProductKeepsOnlyWhatTheWantedGradientReads) {
  Tensor w = uniform({256, 256}, -1, 1, kFloat64).requires_grad_();
  Tensor x = uniform({256, 256}, -1, 1, kFloat64);  // data: wants no gradient
  Tensor h = w * 3.0;
  std::weak_ptr<Storage> h_storage = h.impl()->storage;
  Tensor y = matmul(x, h);  // dL/dh = x^T g reads x only
  h = Tensor();
  EXPECT_TRUE(h_storage.expired());
  sum(y).backward();
  EXPECT_TRUE(allclose(w.grad(), matmul(mT(x), ones({256, 256}, kFloat64)) * 3.0));
}

}  // namespace
}  // namespace strata
