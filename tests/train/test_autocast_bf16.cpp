// bf16 mixed precision on the CPU (docs/mixed_precision.md): AutocastBF16's matmul, convolution and
// LSTM step against float32, forward and backward, within bf16 tolerances; the float32 fallback
// where the CPU has no native bf16; and fit's bf16_mixed_precision reaching float32's accuracy.
// The bf16 side runs on any AVX-512 CPU through STRATA_BF16_EMULATE=1 (oneDNN's emulation).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "blobs.hpp"
#include "strata/core/autocast.hpp"
#include "strata/core/autocast_copies.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/elementwise.hpp"
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

// bf16 copies held by AutocastCopies scopes (strata/core/autocast_copies.hpp): a convolution's
// input and a dense layer's weight rounded once for the forward and the backward pass, an output
// gradient once for both backward products. One thread, so that oneDNN's reductions run in the
// same order every time and the bits can be compared.

void acbf_expect_same_bits(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].to_vector<float>(), want[i].to_vector<float>()) << i;
}

// The output of `forward` on copies of `leaves` that want gradients, then their gradients, for
// the loss sum(y * y + y) (the gradient y + 1 varies).
template <class F>
std::vector<Tensor> acbf_output_and_grads(const std::vector<Tensor>& leaves, F forward) {
  std::vector<Tensor> in;
  for (const Tensor& t : leaves) in.push_back(t.clone().requires_grad_());
  const Tensor y = forward(in);
  sum(y * y.detach() + y).backward();
  std::vector<Tensor> out{y};
  for (const Tensor& t : in) out.push_back(t.grad());
  return out;
}

// What `f` gives under autocast with the kernels' copies held (the default) is, bit for bit, what
// it gives rounding every time.
template <class F>
void acbf_expect_held_as_fresh(F f) {
  AutocastBF16 scope;
  EXPECT_TRUE(scope.active());
  EXPECT_TRUE(AutocastCopies::enabled());
  const std::vector<Tensor> held = f();
  AutocastCopies::set_enabled(false);
  const std::vector<Tensor> fresh = f();
  AutocastCopies::set_enabled(true);
  acbf_expect_same_bits(held, fresh);
}

TEST(AutocastCopiesTest, ConvolutionResultsAreTheBitsOfRoundingEveryTime) {
  AutocastEmulated emulate;
  IntraOpThreadLimit one(1, FollowLoad::kNo);
  Generator gen(21);
  const Tensor x0 = randn({3, 11, 11, 6}, {}, &gen), w0 = randn({5, 5, 6, 16}, {}, &gen) * 0.2,
               b0 = randn({16}, {}, &gen), w1 = randn({3, 3, 16, 8}, {}, &gen) * 0.2;
  for (const bool relu : {false, true})
    for (const int64_t stride : {1, 2}) {
      const ConvOptions opt{.stride = {stride}, .padding = Padding::same(), .fuse_relu = relu};
      acbf_expect_held_as_fresh([&] {
        return acbf_output_and_grads({x0, w0, b0, w1}, [&](const std::vector<Tensor>& t) {
          return conv2d(conv2d(t[0], t[1], t[2], opt), t[3], Tensor(), opt);
        });
      });
    }
}

TEST(AutocastCopiesTest, DenseResultsAreTheBitsOfRoundingEveryTime) {
  AutocastEmulated emulate;
  IntraOpThreadLimit one(1, FollowLoad::kNo);
  Generator gen(22);
  const Tensor x0 = randn({24, 40}, {}, &gen), w0 = randn({40, 32}, {}, &gen) * 0.2, b0 = randn({32}, {}, &gen),
               v0 = randn({32, 10}, {}, &gen) * 0.2;
  acbf_expect_held_as_fresh([&] {
    return acbf_output_and_grads(
        {x0, w0, b0, v0}, [](const std::vector<Tensor>& t) { return linear(relu(linear(t[0], t[1], t[2])), t[3]); });
  });
}

// The copy is used: the backward pass reads the weights as the forward pass rounded them, even if
// they are written in between (which breaks the scope's promise, on purpose here).
TEST(AutocastCopiesTest, TheDenseBackwardReadsTheWeightsTheForwardRounded) {
  AutocastEmulated emulate;
  IntraOpThreadLimit one(1, FollowLoad::kNo);
  Generator gen(23);
  const Tensor x0 = randn({16, 24}, {}, &gen), w0 = randn({24, 12}, {}, &gen);
  const auto input_grad = [&](bool write_between) {
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_();
    const Tensor y = linear(x, w);
    if (write_between) {
      Tensor storage = w.detach();
      mul_(storage, 2.0);
    }
    sum(y).backward();
    return std::vector<Tensor>{x.grad()};
  };
  AutocastBF16 scope;
  const std::vector<Tensor> as_rounded = input_grad(false), written = input_grad(true);
  acbf_expect_same_bits(written, as_rounded);
  AutocastCopies::set_enabled(false);  // rounding again reads the doubled weights
  const std::vector<Tensor> rounded_again = input_grad(true);
  AutocastCopies::set_enabled(true);
  EXPECT_NEAR(rounded_again[0].to_vector<float>()[0], 2 * as_rounded[0].to_vector<float>()[0],
              1e-4 * std::abs(as_rounded[0].to_vector<float>()[0]) + 1e-6);
}

// Likewise a convolution's weight gradient reads the input as the forward pass rounded it.
TEST(AutocastCopiesTest, TheConvolutionWeightGradientReadsTheInputTheForwardRounded) {
  AutocastEmulated emulate;
  IntraOpThreadLimit one(1, FollowLoad::kNo);
  Generator gen(26);
  const Tensor x0 = randn({2, 9, 9, 4}, {}, &gen), w0 = randn({3, 3, 4, 8}, {}, &gen);
  const auto weight_grad = [&](bool write_between) {
    Tensor x = x0.clone(), w = w0.clone().requires_grad_();
    const Tensor y = conv2d(x, w, Tensor(), {.padding = Padding::same()});
    if (write_between) mul_(x, 2.0);
    sum(y).backward();
    return std::vector<Tensor>{w.grad()};
  };
  AutocastBF16 scope;
  const std::vector<Tensor> as_rounded = weight_grad(false);
  acbf_expect_same_bits(weight_grad(true), as_rounded);
  AutocastCopies::set_enabled(false);
  const std::vector<Tensor> rounded_again = weight_grad(true);
  AutocastCopies::set_enabled(true);
  EXPECT_NE(rounded_again[0].to_vector<float>(), as_rounded[0].to_vector<float>());
}

TEST(AutocastCopiesTest, AScopeHandsACopyBackInAnyGapFreeOrder) {
  AutocastEmulated emulate;
  IntraOpThreadLimit one(1, FollowLoad::kNo);
  Generator gen(24);
  const Tensor a = randn({8, 32}, {}, &gen), b = randn({32, 16}, {}, &gen), c = randn({4, 16}, {}, &gen);
  AutocastBF16 bf16;
  const Tensor expected = matmul(c, mT(b));  // rounded as it comes, no scope
  {
    AutocastCopies scope;
    matmul(a, b);  // the kernel rounds a and b and the scope holds both
    const auto held = scope.copies_of(b);
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].bf16.dtype(), kBFloat16);
    EXPECT_EQ(held[0].bf16.to(kFloat32).to_vector<float>(), b.to(kBFloat16).to(kFloat32).to_vector<float>());
    EXPECT_EQ(scope.copies_of(a).size(), 1u);
    EXPECT_TRUE(scope.copies_of(c).empty());
    Tensor storage = b.detach();
    mul_(storage, 3.0);  // breaks the promise on purpose: bᵀ below must come from the held copy
    EXPECT_EQ(matmul(c, mT(b)).to_vector<float>(), expected.to_vector<float>());
  }
  {
    AutocastCopies::set_enabled(false);
    AutocastCopies scope;
    matmul(a, b);
    EXPECT_TRUE(scope.copies_of(b).empty());
    AutocastCopies::set_enabled(true);
  }
  // Casts are never handed a held copy (a cast's result is the caller's to write).
  AutocastCopies scope;
  matmul(a, b);
  Tensor cast = b.to(kBFloat16);
  EXPECT_NE(cast.raw_data(), scope.copies_of(b).at(0).bf16.raw_data());
}

// A relu pair (the gradient g at a relu's output y): a bf16 kernel masks and rounds g in one pass,
// the bits of rounding `y > 0 ? g : 0`. Through matmul with the identity, whose result is the
// rounded operand itself: masks from NaN, ±0, denormal, negative and positive y; g with
// denormals, ties and -0; 67 columns, so the vector loop has tails.
TEST(AutocastCopiesTest, AReluPairIsMaskedAndRoundedInOnePass) {
  AutocastEmulated emulate;
  IntraOpThreadLimit one(1, FollowLoad::kNo);
  const int64_t rows = 40, cols = 67;
  const float specials_y[] = {std::nanf(""), 0.0f, -0.0f, 1e-40f, -1e-40f, -3.0f, 2.5f, 1e30f};
  const float specials_g[] = {
      1e-40f, -1e-40f,  -0.0f, std::bit_cast<float>(0x3f808000u), std::bit_cast<float>(0x3f818000u), 1.0f + 1.0f / 512,
      -7.25f, 3e38f / 4};
  std::vector<float> g(rows * cols), y(rows * cols), masked(rows * cols);
  Generator gen(27);
  const auto noise = uniform({rows * cols}, -4, 4, kFloat32, &gen).to_vector<float>();
  for (int64_t i = 0; i < rows * cols; ++i) {
    y[i] = i % 3 == 0 ? specials_y[(i / 3) % 8] : noise[i];
    g[i] = i % 5 == 0 ? specials_g[(i / 5) % 8] : noise[(i * 7) % (rows * cols)];
    masked[i] = y[i] > 0 ? g[i] : 0.0f;
  }
  const Tensor gt = from_vector(g, {rows, cols}), yt = from_vector(y, {rows, cols});
  const Tensor id = eye(cols);
  AutocastBF16 bf16;
  const Tensor want = matmul(from_vector(masked, {rows, cols}), id);
  AutocastCopies pair({{gt, Tensor(), yt}});
  const Tensor got = matmul(gt, id);
  const auto gv = got.to_vector<float>(), wv = want.to_vector<float>();
  int64_t different = 0;
  for (size_t i = 0; i < gv.size(); ++i) different += std::bit_cast<uint32_t>(gv[i]) != std::bit_cast<uint32_t>(wv[i]);
  EXPECT_EQ(different, 0);
  int64_t rounded = 0, kept = 0;
  for (size_t i = 0; i < gv.size(); ++i) rounded += gv[i] != masked[i], kept += masked[i] != 0;
  EXPECT_GT(rounded, 0);             // bf16 ran: the noise is not made of bf16 values
  EXPECT_GT(kept, rows * cols / 4);  // and the mask kept a good share
}

}  // namespace
}  // namespace strata
