// bf16 mixed precision on the CPU (docs/mixed_precision.md): AutocastBF16's matmul, convolution and
// LSTM step against float32, forward and backward, within bf16 tolerances; the float32 fallback
// where the CPU has no native bf16; and fit's bf16_mixed_precision reaching float32's accuracy.
// The bf16 side runs on any AVX-512 CPU through STRATA_BF16_EMULATE=1 (oneDNN's emulation).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "blobs.hpp"
#include "strata/core/autocast.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/rnn.hpp"
#include "strata/optim/adam.hpp"
#include "strata/train/fit.hpp"

namespace strata {
namespace {

// Sets STRATA_BF16_EMULATE=1 for a test and restores what was there.
class AutocastEmulated {
 public:
  AutocastEmulated() {
    if (const char* v = std::getenv("STRATA_BF16_EMULATE")) previous_ = v, had_ = true;
    setenv("STRATA_BF16_EMULATE", "1", 1);
  }
  ~AutocastEmulated() {
    if (had_)
      setenv("STRATA_BF16_EMULATE", previous_.c_str(), 1);
    else
      unsetenv("STRATA_BF16_EMULATE");
  }

 private:
  std::string previous_;
  bool had_ = false;
};

// The largest |got - want| over the largest |want|: bf16 rounds both operands of every product
// (relative error 2^-8 each), so results of sums of products differ by a few 2^-8 of the scale.
double acbf_relative_error(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.dtype(), kFloat32);
  EXPECT_EQ(got.shape(), want.shape());
  const auto g = got.to_vector<double>(), w = want.to_vector<double>();
  double err = 0, scale = 0;
  for (size_t i = 0; i < g.size(); ++i)
    err = std::max(err, std::abs(g[i] - w[i])), scale = std::max(scale, std::abs(w[i]));
  return err / scale;
}
constexpr double kBf16Tolerance = 1.0 / 64;  // 4 * 2^-8

// The values `f` gives (outputs then gradients) with and without the bf16 scope.
template <class F>
std::pair<std::vector<Tensor>, std::vector<Tensor>> acbf_both(F f) {
  std::vector<Tensor> wide = f();
  AutocastBF16 scope;
  EXPECT_TRUE(scope.active());
  return {f(), wide};
}

TEST(AutocastBF16Test, MatmulRunsInBf16WithFloat32Outputs) {
  AutocastEmulated emulate;
  Generator gen(1);
  const Tensor a = randn({16, 96}, {}, &gen), b = randn({96, 24}, {}, &gen);
  const Tensor bf = [&] {
    AutocastBF16 scope;
    return matmul(a, b);
  }();
  ASSERT_EQ(bf.dtype(), kFloat32);
  const Tensor exact = matmul(a, b);
  const double err = acbf_relative_error(bf, exact);
  EXPECT_LT(err, kBf16Tolerance);
  EXPECT_GT(err, 0);  // it did round: float32 would agree to ~1e-7
  // Against float32 on the rounded operands: only the accumulation order differs.
  EXPECT_LT(acbf_relative_error(bf, matmul(a.to(kBFloat16).to(kFloat32), b.to(kBFloat16).to(kFloat32))), 1e-5);
}

TEST(AutocastBF16Test, ConvolutionForwardAndBackwardAgreeWithFloat32) {
  AutocastEmulated emulate;
  Generator gen(2);
  const Tensor x0 = randn({2, 9, 9, 3}, {}, &gen), w0 = randn({3, 3, 3, 8}, {}, &gen) * 0.3, b0 = randn({8}, {}, &gen);
  const auto run = [&] {
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
    const Tensor y = conv2d(x, w, b, {.stride = {2}, .padding = Padding::same()});
    sum(y * y.detach() + y).backward();  // d loss / dy = y + 1: a gradient that varies
    return std::vector<Tensor>{y, x.grad(), w.grad(), b.grad()};
  };
  const auto [bf, wide] = acbf_both(run);
  const char* names[] = {"output", "d input", "d weights", "d bias"};
  for (size_t i = 0; i < bf.size(); ++i) EXPECT_LT(acbf_relative_error(bf[i], wide[i]), kBf16Tolerance) << names[i];
}

TEST(AutocastBF16Test, LstmStepForwardAndBackwardAgreeWithFloat32) {
  AutocastEmulated emulate;
  Generator gen(3);
  const int64_t batch = 4, in = 12, units = 10;
  const Tensor x = randn({batch, in}, {}, &gen), h = randn({batch, units}, {}, &gen),
               c = randn({batch, units}, {}, &gen);
  const Tensor W0 = randn({in, 4 * units}, {}, &gen) * 0.3, U0 = randn({units, 4 * units}, {}, &gen) * 0.3;
  const auto run = [&] {
    Tensor W = W0.clone().requires_grad_(), U = U0.clone().requires_grad_();
    const auto hc = lstm_cell(matmul(x, W), matmul(h, U), c);
    sum(hc[0] * 2.0 + hc[1]).backward();
    return std::vector<Tensor>{hc[0], hc[1], W.grad(), U.grad()};
  };
  const auto [bf, wide] = acbf_both(run);
  for (size_t i = 0; i < bf.size(); ++i) EXPECT_LT(acbf_relative_error(bf[i], wide[i]), kBf16Tolerance) << i;
}

TEST(AutocastBF16Test, WithoutNativeBf16TheScopeRunsFloat32) {
  if (cpu_has_native_bf16()) GTEST_SKIP() << "this CPU has native bf16: no fallback to check";
  unsetenv("STRATA_BF16_EMULATE");
  EXPECT_FALSE(bf16_autocast_available());
  Generator gen(4);
  const Tensor a = randn({8, 40}, {}, &gen), b = randn({40, 8}, {}, &gen);
  AutocastBF16 scope;
  EXPECT_FALSE(scope.active());
  EXPECT_FALSE(autocast_bf16_active());
  EXPECT_EQ(matmul(a, b).to_vector<float>(), [&] {
    AutocastBF16 off(false);
    return matmul(a, b).to_vector<float>();
  }());
}

TEST(AutocastBF16Test, NestedScopesRestoreAndDisabledScopesTurnItOff) {
  AutocastEmulated emulate;
  EXPECT_FALSE(autocast_bf16_active());
  {
    AutocastBF16 on;
    EXPECT_TRUE(autocast_bf16_active());
    {
      AutocastBF16 off(false);
      EXPECT_FALSE(autocast_bf16_active());
    }
    EXPECT_TRUE(autocast_bf16_active());
  }
  EXPECT_FALSE(autocast_bf16_active());
}

// Two blobs close enough together that float32 stops short of 100% (about 92%), trained alike from
// the same weights and batches, in float32 and in bf16 mixed precision.
TEST(AutocastBF16Test, FitWithBf16MixedPrecisionMatchesFloat32Accuracy) {
  AutocastEmulated emulate;
  manual_seed(5);
  auto blobs = train::testing::make_blobs(1024, 11), test = train::testing::make_blobs(1024, 12);
  Generator noise(13);  // variance 1 + 3 around centers +-2: the classes overlap
  blobs.x = blobs.x + randn(blobs.x.shape(), {}, &noise) * std::sqrt(3.0);
  test.x = test.x + randn(test.x.shape(), {}, &noise) * std::sqrt(3.0);
  const auto train_one = [&](bool bf16) {
    auto net = train::testing::make_classifier();
    manual_seed(6);
    auto start = train::testing::make_classifier();
    train::testing::copy_weights(*start, *net);
    optim::Adam adam(net->trainable_weights(), {.lr = 0.01});
    std::ostringstream quiet;
    const train::History h = train::fit(
        *net, adam, {}, {blobs.x, blobs.y},
        {.epochs = 4, .batch_size = 32, .bf16_mixed_precision = bf16, .seed = 3, .verbose = 0, .out = &quiet});
    EXPECT_EQ(h.contains("bf16"), bf16);
    if (bf16) EXPECT_EQ(h["bf16"].back(), 1);
    return train::evaluate(*net, {}, test.x, test.y, 256).at("accuracy");
  };
  const double wide = train_one(false), mixed = train_one(true);
  RecordProperty("float32_accuracy", std::to_string(wide));  // --gtest_output=xml shows the figures
  RecordProperty("bf16_mixed_accuracy", std::to_string(mixed));
  EXPECT_GT(wide, 0.85);
  EXPECT_LT(wide, 0.97);  // not a problem every model solves exactly
  EXPECT_NEAR(mixed, wide, 0.01) << "float32 " << wide << ", bf16 mixed " << mixed;  // 10 of 1024 rows
}

TEST(AutocastBF16Test, FitSaysWhenItFellBackToFloat32) {
  if (cpu_has_native_bf16()) GTEST_SKIP() << "this CPU has native bf16: no fallback to check";
  unsetenv("STRATA_BF16_EMULATE");
  const auto blobs = train::testing::make_blobs(64, 1);
  auto net = train::testing::make_classifier();
  optim::Adam adam(net->trainable_weights(), {.lr = 0.01});
  const train::History h =
      train::fit(*net, adam, {}, {blobs.x, blobs.y}, {.epochs = 1, .bf16_mixed_precision = true, .verbose = 0});
  EXPECT_EQ(h["bf16"].back(), 0);
}

}  // namespace
}  // namespace strata
