// Layer-by-layer times of a training step. Each layer runs on the previous layer's (detached)
// output, wanting its input's gradient as it does in the step (all but the first layer), and its
// backward is fed a random output gradient; weight gradients are dropped before every pass, as
// zero_grad does in the step. Strata and libtorch alternate rep by rep and the best time of each
// is kept (harness.hpp's rule), so that the rows compare on the same machine load. The rows'
// sum is printed beside the whole step, measured the same way: they differ by what the
// layer-by-layer cut adds (a graph per layer) or hides (cache reuse across layers).
#include "breakdown.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "mnist_cnn.hpp"

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Layer {
  std::string name;
  std::function<strata::Tensor(const strata::Tensor&)> strata;
  std::function<torch::Tensor(const torch::Tensor&)> torch;
};

struct Times {
  double fwd = INFINITY, bwd = INFINITY;
};

struct Net {
  std::vector<Layer> layers;
  std::vector<strata::Tensor> strata_weights;
  std::vector<torch::Tensor> torch_weights;
};

void drop_grads(Net& net) {
  for (strata::Tensor w : net.strata_weights) w.zero_grad();
  for (auto& p : net.torch_weights) p.mutable_grad() = torch::Tensor();
}

// Best forward and backward time of one layer on each side.
std::pair<Times, Times> time_layer(Net& net, const Layer& l, const strata::Tensor& sx_in, const torch::Tensor& tx_in,
                                   bool input_grad, int reps) {
  strata::Tensor sx = sx_in.detach();
  sx.requires_grad_(input_grad);
  torch::Tensor tx = tx_in.detach().requires_grad_(input_grad);
  strata::Tensor sdy;
  torch::Tensor tdy;
  Times s, t;
  for (int i = 0; i < reps + 2; ++i) {  // the first two warm up
    const bool timed = i >= 2;
    drop_grads(net);
    auto t0 = Clock::now();
    strata::Tensor sy = l.strata(sx);
    const double sf = since(t0);
    if (!sdy.defined()) sdy = strata::rand(sy.shape());
    t0 = Clock::now();
    sy.backward(sdy);
    const double sb = since(t0);
    t0 = Clock::now();
    torch::Tensor ty = l.torch(tx);
    const double tf = since(t0);
    if (!tdy.defined()) tdy = torch::rand_like(ty);
    t0 = Clock::now();
    ty.backward(tdy);
    const double tb = since(t0);
    if (timed) {
      s = {std::min(s.fwd, sf), std::min(s.bwd, sb)};
      t = {std::min(t.fwd, tf), std::min(t.bwd, tb)};
    }
  }
  return {s, t};
}

void print_row(const std::string& name, const Times& s, const Times& t) {
  auto ms = [](double x) { return x * 1e3; };
  std::printf("%-26s | %8.3f %8.3f %8.3f | %8.3f %8.3f %8.3f | %6.2f\n", name.c_str(), ms(s.fwd), ms(s.bwd),
              ms(s.fwd + s.bwd), ms(t.fwd), ms(t.bwd), ms(t.fwd + t.bwd), (t.fwd + t.bwd) / (s.fwd + s.bwd));
}

void breakdown(const char* title, Net net, const strata::Tensor& x, const torch::Tensor& tx, int reps) {
  constexpr int64_t kClasses = 10;
  strata::Tensor labels = strata::randint(0, kClasses, {x.size(0)});
  torch::Tensor tlabels = to_torch(labels);
  std::printf("\n%s (ms; best of %d)\n", title, reps);
  std::printf("%-26s | %8s %8s %8s | %8s %8s %8s | %6s\n", "layer", "strata", "bwd", "sum", "libtorch", "bwd", "sum",
              "ratio");
  std::printf("%s\n", std::string(92, '-').c_str());
  strata::Tensor sx = x;
  torch::Tensor t_x = tx;
  Times s_total{0, 0}, t_total{0, 0};
  auto add = [](Times& total, const Times& row) { total = {total.fwd + row.fwd, total.bwd + row.bwd}; };
  for (size_t k = 0; k < net.layers.size(); ++k) {
    const Layer& l = net.layers[k];
    auto [s, t] = time_layer(net, l, sx, t_x, k > 0, reps);
    print_row(l.name, s, t);
    add(s_total, s);
    add(t_total, t);
    strata::NoGradGuard g;
    torch::NoGradGuard tg;
    sx = l.strata(sx);
    t_x = l.torch(t_x);
  }
  Layer loss{"cross-entropy loss", [&](const strata::Tensor& z) { return strata::cross_entropy(z, labels); },
             [&](const torch::Tensor& z) { return torch::nn::functional::cross_entropy(z, tlabels); }};
  auto [sl, tl] = time_layer(net, loss, sx, t_x, true, reps);
  print_row(loss.name, sl, tl);
  add(s_total, sl);
  add(t_total, tl);

  // Adam over every parameter, with the gradients of one whole step in place.
  strata::optim::Adam adam(net.strata_weights);
  torch::optim::Adam tadam(net.torch_weights);
  auto strata_step = [&] {
    strata::Tensor z = x;
    for (const Layer& l : net.layers) z = l.strata(z);
    return strata::cross_entropy(z, labels);
  };
  auto torch_step = [&] {
    torch::Tensor z = tx;
    for (const Layer& l : net.layers) z = l.torch(z);
    return torch::nn::functional::cross_entropy(z, tlabels);
  };
  drop_grads(net);
  strata_step().backward();
  torch_step().backward();
  Times sa{INFINITY, 0}, ta{INFINITY, 0}, s_step{INFINITY, 0}, t_step{INFINITY, 0};
  for (int i = 0; i < reps + 2; ++i) {
    auto t0 = Clock::now();
    adam.step();
    const double s = since(t0);
    t0 = Clock::now();
    tadam.step();
    const double t = since(t0);
    if (i >= 2) sa.fwd = std::min(sa.fwd, s), ta.fwd = std::min(ta.fwd, t);
  }
  print_row("Adam step (all weights)", sa, ta);
  add(s_total, sa);
  add(t_total, ta);
  std::printf("%s\n", std::string(92, '-').c_str());
  print_row("sum of the rows", s_total, t_total);

  // The whole step as the training cases run it, timed the same way.
  for (int i = 0; i < reps + 2; ++i) {
    auto t0 = Clock::now();
    strata::Tensor l = strata_step();
    adam.zero_grad();
    l.backward();
    adam.step();
    const double s = since(t0);
    t0 = Clock::now();
    torch::Tensor tl_ = torch_step();
    tadam.zero_grad();
    tl_.backward();
    tadam.step();
    const double t = since(t0);
    if (i >= 2) s_step.fwd = std::min(s_step.fwd, s), t_step.fwd = std::min(t_step.fwd, t);
  }
  print_row("whole step", s_step, t_step);
}

template <class L>
std::function<strata::Tensor(const strata::Tensor&)> strata_layer(std::shared_ptr<L> layer) {
  return [layer](const strata::Tensor& x) { return (*layer)(x); };
}

Net tl_cnn() {
  auto s = std::make_shared<StrataMnistCnn>(1024);
  TorchMnistCnn t(1024);
  (*s)(strata::rand({1, 28, 28, 1}));  // build the weights
  namespace F = torch::nn::functional;
  Net net;
  net.layers = {
      {"conv 5x5 1->32 + relu", [s](const strata::Tensor& x) { return s->c1(x); },
       [t](const torch::Tensor& x) mutable { return torch::relu(t->c1->forward(x)); }},
      {"max pool 2x2", [s](const strata::Tensor& x) { return s->p1(x); },
       [](const torch::Tensor& x) { return torch::max_pool2d(x, 2); }},
      {"conv 5x5 32->64 + relu", [s](const strata::Tensor& x) { return s->c2(x); },
       [t](const torch::Tensor& x) mutable { return torch::relu(t->c2->forward(x)); }},
      {"max pool 2x2", [s](const strata::Tensor& x) { return s->p2(x); },
       [](const torch::Tensor& x) { return torch::max_pool2d(x, 2); }},
      {"flatten", [s](const strata::Tensor& x) { return s->flat(x); },
       [](const torch::Tensor& x) { return x.flatten(1); }},
      {"dense 3136->1024 + relu", [s](const strata::Tensor& x) { return s->hidden(x); },
       [t](const torch::Tensor& x) mutable { return torch::relu(t->hidden->forward(x)); }},
      {"dense 1024->10", [s](const strata::Tensor& x) { return s->out(x); },
       [t](const torch::Tensor& x) mutable { return t->out->forward(x); }},
  };
  net.strata_weights = s->trainable_weights();
  net.torch_weights = t->parameters();
  return net;
}

Net tl_mlp() {
  namespace snn = strata::nn;
  auto a = std::make_shared<snn::Dense>(800, snn::relu), b = std::make_shared<snn::Dense>(800, snn::relu),
       out = std::make_shared<snn::Dense>(10);
  auto drop = std::make_shared<snn::Dropout>(0.5);
  torch::nn::Linear ta(784, 800), tb(800, 800), tout(800, 10);
  torch::nn::Dropout tdrop(0.5);
  {
    strata::NoGradGuard g;
    (*out)((*b)((*a)(strata::rand({1, 784}))));
  }
  Net net;
  net.layers = {
      {"dense 784->800 + relu", strata_layer(a),
       [ta](const torch::Tensor& x) mutable { return torch::relu(ta->forward(x)); }},
      {"dropout 0.5", strata_layer(drop), [tdrop](const torch::Tensor& x) mutable { return tdrop->forward(x); }},
      {"dense 800->800 + relu", strata_layer(b),
       [tb](const torch::Tensor& x) mutable { return torch::relu(tb->forward(x)); }},
      {"dropout 0.5", strata_layer(drop), [tdrop](const torch::Tensor& x) mutable { return tdrop->forward(x); }},
      {"dense 800->10", strata_layer(out), [tout](const torch::Tensor& x) mutable { return tout->forward(x); }},
  };
  for (const auto& l : {a, b, out})
    for (const auto& w : l->trainable_weights()) net.strata_weights.push_back(w);
  for (const auto& m : {ta, tb, tout})
    for (const auto& p : m->parameters()) net.torch_weights.push_back(p);
  return net;
}

}  // namespace

void print_breakdowns(int reps) {
  constexpr int64_t kBatch = 128;
  strata::Tensor img = strata::rand({kBatch, 28, 28, 1});
  // channels-last NCHW: the same bytes as NHWC, so libtorch's convolutions run NHWC as ours do.
  torch::Tensor timg = to_torch(img).permute({0, 3, 1, 2});
  breakdown("TL tutorial CNN training step, batch 128, Adam", tl_cnn(), img, timg, reps);
  strata::Tensor flat = strata::rand({kBatch, 784});
  breakdown("TL MLP 784-800-800-10 training step, batch 128, Adam", tl_mlp(), flat, to_torch(flat), reps);
}

}  // namespace bench
