// Each optimizer against a plain-loop float64 transcription of torch.optim's documented rule,
// on a small quadratic; then each reduces a least-squares loss; then bad options are refused.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"

#include <cmath>
#include <functional>
#include <string>

#include "strata/optim/optim.hpp"
#include "strata/strata.hpp"

namespace strata::optim {
namespace {

// The reference's per-element state, one field per PyTorch buffer.
struct Ref {
  double m = 0, v = 0, vmax = 0, buf = 0, sum = 0, acc = 0, gavg = 0;
  bool started = false;
};
// One element's update: returns the new value of x given its gradient g, the parameter's step
// count t (from 1) and the learning rate.
using Rule = std::function<double(double x, double g, int t, double lr, Ref& s)>;

// loss = sum(a/2 x^2 + b x) over three parameters; the second gets no gradient at step 2 (it
// is left out of the loss), the third never does and must not move.
struct Quadratic {
  std::vector<std::vector<double>> x0 = {{1.0, -2.0, 0.5}, {0.3, -0.7, 2.0, -1.5}, {4.0}};
  std::vector<std::vector<double>> a = {{1.0, 3.0, 0.5}, {2.0, 0.1, 1.5, 4.0}, {1.0}};
  std::vector<std::vector<double>> b = {{0.5, -1.0, 0.0}, {-0.2, 0.3, 1.0, 0.0}, {0.0}};
  std::vector<Shape> shapes = {{3}, {2, 2}, {1}};

  std::vector<Tensor> params(DType dtype) const {
    std::vector<Tensor> ps;
    for (size_t i = 0; i < x0.size(); ++i)
      ps.push_back(from_vector(x0[i], shapes[i]).to(dtype).requires_grad_());
    return ps;
  }
  static bool has_grad(size_t i, int step) { return i == 0 || (i == 1 && step != 2); }

  Tensor loss(const std::vector<Tensor>& ps, int step) const {
    Tensor total;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (!has_grad(i, step)) continue;
      Tensor ai = from_vector(a[i], shapes[i]).to(ps[i].dtype()), bi = from_vector(b[i], shapes[i]).to(ps[i].dtype());
      Tensor li = sum(ai * ps[i] * ps[i] * 0.5 + bi * ps[i]);
      total = total.defined() ? total + li : li;
    }
    return total;
  }
};

constexpr int kSteps = 6;
double lr_at(double lr, int step) { return step > 3 ? lr * 0.5 : lr; }  // a schedule's change mid-run

// Runs the optimizer and the reference side by side for kSteps steps, halving the learning
// rate after step 3, and compares every element after every step.
void expect_matches_reference(const std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>& make,
                              const Rule& rule, DType dtype = kFloat64, double tol = 1e-12) {
  Quadratic q;
  std::vector<Tensor> ps = q.params(dtype);
  std::unique_ptr<Optimizer> opt = make(ps);
  const double lr0 = opt->learning_rate();
  std::vector<std::vector<double>> x = q.x0;
  std::vector<std::vector<Ref>> state;
  std::vector<int> t(x.size(), 0);
  for (auto& xi : x) state.emplace_back(xi.size());

  for (int step = 1; step <= kSteps; ++step) {
    opt->set_learning_rate(lr_at(lr0, step));
    opt->zero_grad();
    q.loss(ps, step).backward();
    opt->step();
    for (size_t i = 0; i < x.size(); ++i) {
      if (!Quadratic::has_grad(i, step)) continue;
      ++t[i];
      for (size_t k = 0; k < x[i].size(); ++k) {
        double g = q.a[i][k] * x[i][k] + q.b[i][k];
        x[i][k] = rule(x[i][k], g, t[i], lr_at(lr0, step), state[i][k]);
      }
    }
    for (size_t i = 0; i < x.size(); ++i) {
      auto got = ps[i].to_vector<double>();
      for (size_t k = 0; k < x[i].size(); ++k)
        ASSERT_NEAR(got[k], x[i][k], tol * std::max(1.0, std::abs(x[i][k])))
            << opt->name() << ": parameter " << i << " element " << k << " after step " << step;
    }
  }
  EXPECT_EQ(opt->state(0).step, kSteps);
  EXPECT_EQ(opt->state(1).step, kSteps - 1);  // skipped when it had no gradient
  EXPECT_EQ(opt->state(2).step, 0);
  EXPECT_TRUE(opt->state(2).buffers.empty());  // state is created at the first update only
  EXPECT_EQ(ps[2].to_vector<double>()[0], 4.0);
}

template <class O, class Options>
auto maker(Options options) {
  return [options](std::vector<Tensor> ps) { return std::unique_ptr<Optimizer>(new O(std::move(ps), options)); };
}

Rule sgd_rule(double momentum, double dampening, double wd, bool nesterov) {
  return [=](double x, double g, int, double lr, Ref& s) {
    g += wd * x;
    if (momentum != 0) {
      s.buf = s.started ? momentum * s.buf + (1 - dampening) * g : g;
      s.started = true;
      g = nesterov ? g + momentum * s.buf : s.buf;
    }
    return x - lr * g;
  };
}

Rule adam_rule(double b1, double b2, double eps, double wd, bool amsgrad, bool decoupled) {
  return [=](double x, double g, int t, double lr, Ref& s) {
    if (decoupled) x *= 1 - lr * wd;
    else g += wd * x;
    s.m = b1 * s.m + (1 - b1) * g;
    s.v = b2 * s.v + (1 - b2) * g * g;
    s.vmax = std::max(s.vmax, s.v);
    double m_hat = s.m / (1 - std::pow(b1, t));
    double v_hat = (amsgrad ? s.vmax : s.v) / (1 - std::pow(b2, t));
    return x - lr * m_hat / (std::sqrt(v_hat) + eps);
  };
}

TEST(OptimTest, SGDPlainMatchesReference) {
  expect_matches_reference(maker<SGD>(SGDOptions{.lr = 0.1}), sgd_rule(0, 0, 0, false));
}

TEST(OptimTest, SGDMomentumWithDampeningAndWeightDecayMatchesReference) {
  expect_matches_reference(maker<SGD>(SGDOptions{.lr = 0.1, .momentum = 0.9, .dampening = 0.3, .weight_decay = 0.05}),
                           sgd_rule(0.9, 0.3, 0.05, false));
}

TEST(OptimTest, SGDNesterovMatchesReference) {
  expect_matches_reference(maker<SGD>(SGDOptions{.lr = 0.05, .momentum = 0.8, .weight_decay = 0.01, .nesterov = true}),
                           sgd_rule(0.8, 0, 0.01, true));
}

TEST(OptimTest, AdamMatchesReference) {
  expect_matches_reference(maker<Adam>(AdamOptions{.lr = 0.1}), adam_rule(0.9, 0.999, 1e-8, 0, false, false));
}

TEST(OptimTest, AdamWithL2AndAmsgradMatchesReference) {
  expect_matches_reference(
      maker<Adam>(AdamOptions{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.9, .eps = 1e-6, .weight_decay = 0.1, .amsgrad = true}),
      adam_rule(0.8, 0.9, 1e-6, 0.1, true, false));
}

TEST(OptimTest, AdamInFloat32MatchesTheFloat64Reference) {
  expect_matches_reference(maker<Adam>(AdamOptions{.lr = 0.1}), adam_rule(0.9, 0.999, 1e-8, 0, false, false), kFloat32,
                           2e-6);
}

// The fused Adam kernel works on flat data; a parameter that is a strided view must be
// updated through it exactly as its contiguous copy is.
TEST(OptimTest, AdamUpdatesAStridedParameterLikeAContiguousOne) {
  Tensor base = tensor({1.0, -2.0, 3.0, 0.5, 0.25, -1.0}, {2, 3});
  Tensor strided = base.transpose(0, 1).requires_grad_();  // a leaf view, not contiguous
  Tensor dense = strided.contiguous().detach().requires_grad_();
  ASSERT_FALSE(strided.is_contiguous());
  Adam a({strided}, {.lr = 0.1, .weight_decay = 0.1, .amsgrad = true});
  Adam b({dense}, {.lr = 0.1, .weight_decay = 0.1, .amsgrad = true});
  for (int i = 0; i < 3; ++i) {
    for (Tensor* t : {&strided, &dense}) {
      t->zero_grad();
      sum(square(*t) * tensor({1.0, 2.0}, {1, 2})).backward();
    }
    a.step();
    b.step();
  }
  EXPECT_EQ(strided.to_vector<double>(), dense.to_vector<double>());
  EXPECT_NE(dense.to_vector<double>()[0], 1.0);
  EXPECT_EQ(base.to_vector<double>()[1], strided.to_vector<double>()[2]);  // written through the view
}

TEST(OptimTest, AdamWDecouplesWeightDecay) {
  expect_matches_reference(maker<AdamW>(AdamWOptions{.lr = 0.1, .weight_decay = 0.2}),
                           adam_rule(0.9, 0.999, 1e-8, 0.2, false, true));
  expect_matches_reference(maker<AdamW>(AdamWOptions{.lr = 0.1, .beta2 = 0.9, .amsgrad = true}),
                           adam_rule(0.9, 0.9, 1e-8, 0.01, true, true));
}

TEST(OptimTest, AdamaxMatchesReference) {
  const double b1 = 0.9, b2 = 0.99, eps = 1e-8, wd = 0.05;
  expect_matches_reference(maker<Adamax>(AdamaxOptions{.lr = 0.1, .beta2 = b2, .weight_decay = wd}),
                           [=](double x, double g, int t, double lr, Ref& s) {
                             g += wd * x;
                             s.m = b1 * s.m + (1 - b1) * g;
                             s.v = std::max(b2 * s.v, std::abs(g) + eps);
                             return x - lr / (1 - std::pow(b1, t)) * s.m / s.v;
                           });
}

Rule rmsprop_rule(double alpha, double eps, double wd, double momentum, bool centered) {
  return [=](double x, double g, int, double lr, Ref& s) {
    g += wd * x;
    s.v = alpha * s.v + (1 - alpha) * g * g;
    double v = s.v;
    if (centered) {
      s.gavg = alpha * s.gavg + (1 - alpha) * g;
      v -= s.gavg * s.gavg;
    }
    double denom = std::sqrt(v) + eps;
    if (momentum > 0) {
      s.buf = momentum * s.buf + g / denom;
      return x - lr * s.buf;
    }
    return x - lr * g / denom;
  };
}

TEST(OptimTest, RMSpropMatchesReference) {
  expect_matches_reference(maker<RMSprop>(RMSpropOptions{.lr = 0.01}), rmsprop_rule(0.99, 1e-8, 0, 0, false));
}

TEST(OptimTest, RMSpropCenteredWithMomentumAndWeightDecayMatchesReference) {
  expect_matches_reference(
      maker<RMSprop>(RMSpropOptions{.lr = 0.01, .alpha = 0.9, .weight_decay = 0.1, .momentum = 0.7, .centered = true}),
      rmsprop_rule(0.9, 1e-8, 0.1, 0.7, true));
}

TEST(OptimTest, AdagradMatchesReference) {
  const double lr_decay = 0.1, wd = 0.02, init = 0.5, eps = 1e-10;
  expect_matches_reference(maker<Adagrad>(AdagradOptions{.lr = 0.3, .lr_decay = lr_decay, .weight_decay = wd,
                                                         .initial_accumulator_value = init}),
                           [=](double x, double g, int t, double lr, Ref& s) {
                             if (t == 1) s.sum = init;
                             g += wd * x;
                             s.sum += g * g;
                             double clr = lr / (1 + (t - 1) * lr_decay);
                             return x - clr * g / (std::sqrt(s.sum) + eps);
                           });
}

TEST(OptimTest, AdadeltaMatchesReference) {
  const double rho = 0.8, eps = 1e-6, wd = 0.1;
  expect_matches_reference(maker<Adadelta>(AdadeltaOptions{.rho = rho, .weight_decay = wd}),
                           [=](double x, double g, int, double lr, Ref& s) {
                             g += wd * x;
                             s.v = rho * s.v + (1 - rho) * g * g;
                             double dx = std::sqrt(s.acc + eps) / std::sqrt(s.v + eps) * g;
                             s.acc = rho * s.acc + (1 - rho) * dx * dx;
                             return x - lr * dx;
                           });
}

TEST(OptimTest, DefaultsAreTorchDefaults) {
  std::vector<Tensor> ps = {zeros({2}).requires_grad_()};
  EXPECT_DOUBLE_EQ(Adam(ps).learning_rate(), 1e-3);
  EXPECT_DOUBLE_EQ(AdamW(ps).options().weight_decay, 1e-2);
  EXPECT_DOUBLE_EQ(Adamax(ps).learning_rate(), 2e-3);
  EXPECT_DOUBLE_EQ(RMSprop(ps).options().alpha, 0.99);
  EXPECT_DOUBLE_EQ(Adagrad(ps).options().eps, 1e-10);
  EXPECT_DOUBLE_EQ(Adadelta(ps).learning_rate(), 1.0);
  EXPECT_DOUBLE_EQ(Adadelta(ps).options().eps, 1e-6);
}

// mean((A w - y)^2) for a random well-conditioned A; every optimizer must cut it tenfold.
TEST(OptimTest, EveryOptimizerReducesALeastSquaresLoss) {
  Generator gen(7);
  Tensor A = randn({32, 4}, kFloat32, &gen), w_true = randn({4, 1}, kFloat32, &gen);
  Tensor y = matmul(A, w_true);
  using Make = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;
  std::vector<std::pair<std::string, Make>> cases = {
      {"SGD", maker<SGD>(SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true})},
      {"Adam", maker<Adam>(AdamOptions{.lr = 0.05})},
      {"AdamW", maker<AdamW>(AdamWOptions{.lr = 0.05})},
      {"Adamax", maker<Adamax>(AdamaxOptions{.lr = 0.05})},
      {"RMSprop", maker<RMSprop>(RMSpropOptions{.lr = 0.01, .centered = true})},
      {"Adagrad", maker<Adagrad>(AdagradOptions{.lr = 0.3})},
      {"Adadelta", maker<Adadelta>(AdadeltaOptions{.lr = 10.0})},
  };
  for (auto& [name, make] : cases) {
    Tensor w = zeros({4, 1}).requires_grad_();
    std::unique_ptr<Optimizer> opt = make({w});
    auto loss_now = [&] { return mean(square(matmul(A, w) - y)); };
    const double initial = loss_now().item<double>();
    for (int i = 0; i < 150; ++i) {
      opt->zero_grad();
      loss_now().backward();
      opt->step();
    }
    EXPECT_LT(loss_now().item<double>(), 0.1 * initial) << name;
  }
}

using strata::testing::expect_error;

TEST(OptimTest, BadOptionsThrowNamingTheOptimizerAndTheValue) {
  std::vector<Tensor> ps = {zeros({2}).requires_grad_()};
  expect_error([&] { SGD(ps, {.lr = -0.1}); }, {"SGD", "lr", "-0.1"});
  expect_error([&] { SGD(ps, {.lr = 0.1, .nesterov = true}); }, {"SGD", "nesterov", "momentum"});
  expect_error([&] { Adam(ps, {.lr = -1}); }, {"Adam", "lr", "-1"});
  expect_error([&] { Adam(ps, {.beta1 = 1.0}); }, {"Adam", "beta1", "[0, 1)", "got 1"});
  expect_error([&] { AdamW(ps, {.beta2 = -0.5}); }, {"AdamW", "beta2", "-0.5"});
  expect_error([&] { Adamax(ps, {.beta2 = 1.5}); }, {"Adamax", "beta2", "1.5"});
  expect_error([&] { RMSprop(ps, {.alpha = 1.5}); }, {"RMSprop", "alpha", "1.5"});
  expect_error([&] { Adagrad(ps, {.lr_decay = -0.5}); }, {"Adagrad", "lr_decay", "-0.5"});
  expect_error([&] { Adadelta(ps, {.rho = 2}); }, {"Adadelta", "rho", "2"});
  expect_error([&] { Adam(ps).set_learning_rate(-3); }, {"Adam", "lr", "-3"});
  expect_error([&] { SGD({Tensor()}); }, {"SGD", "undefined"});
  expect_error([&] { SGD({zeros({2}, kInt64)}); }, {"SGD", "int64"});
}

}  // namespace
}  // namespace strata::optim
