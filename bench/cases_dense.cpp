// Matrix products and a small MLP: the work behind Dense layers.
#include <array>
#include <cmath>
#include <memory>

#include "cases.hpp"
#include "strata/strata.hpp"

namespace bench {
namespace {

Case sgemm() {
  const int64_t n = 1024;
  auto a = strata::randn({n, n}), b = strata::randn({n, n});
  auto ta = to_torch(a), tb = to_torch(b);
  Case c{"sgemm 1024x1024x1024", "oneDNN matmul / OpenBLAS sgemm", 2.0 * n * n * n};
  c.strata.run = [=] { strata::NoGradGuard g; strata::matmul(a, b); };
  c.torch.run = [=] { torch::InferenceMode g; torch::mm(ta, tb); };
  c.max_diff = [=] { strata::NoGradGuard g; return max_rel_diff(strata::matmul(a, b), torch::mm(ta, tb)); };
  return c;
}

Case batched_matmul() {
  const int64_t batch = 64, n = 64;
  auto a = strata::randn({batch, n, n}), b = strata::randn({batch, n, n});
  auto ta = to_torch(a), tb = to_torch(b);
  Case c{"bmm 64 x (64x64 @ 64x64)", "oneDNN batched matmul / bmm: sgemm per matrix", 2.0 * batch * n * n * n};
  c.strata.run = [=] { strata::NoGradGuard g; strata::matmul(a, b); };
  c.torch.run = [=] { torch::InferenceMode g; torch::matmul(ta, tb); };
  c.max_diff = [=] { strata::NoGradGuard g; return max_rel_diff(strata::matmul(a, b), torch::matmul(ta, tb)); };
  return c;
}

// 784-800-800-10 with relu, the same initial weights on both sides. Strata keeps Dense weights
// as [in, out] (TensorLayer); libtorch's linear takes [out, in], as a PyTorch user writes it.
constexpr std::array<int64_t, 4> kWidths = {784, 800, 800, 10};

struct Mlp {
  std::vector<strata::Tensor> w, b;
  std::vector<torch::Tensor> tw, tb;

  Mlp() {
    for (size_t i = 0; i + 1 < kWidths.size(); ++i) {
      double scale = std::sqrt(2.0 / kWidths[i]);
      w.push_back(strata::normal({kWidths[i], kWidths[i + 1]}, 0, scale));
      b.push_back(strata::zeros({kWidths[i + 1]}));
      tw.push_back(to_torch(w.back()).t().contiguous());
      tb.push_back(to_torch(b.back()));
    }
  }
  strata::Tensor forward(const strata::Tensor& x) const {
    strata::Tensor h = x;
    for (size_t i = 0; i < w.size(); ++i) {
      h = strata::linear(h, w[i], b[i]);
      if (i + 1 < w.size()) h = strata::relu(h);
    }
    return h;
  }
  torch::Tensor forward(const torch::Tensor& x) const {
    torch::Tensor h = x;
    for (size_t i = 0; i < tw.size(); ++i) {
      h = torch::linear(h, tw[i], tb[i]);
      if (i + 1 < tw.size()) h = torch::relu(h);
    }
    return h;
  }
};

double mlp_forward_flops(int64_t batch) {
  double f = 0;
  for (size_t i = 0; i + 1 < kWidths.size(); ++i) f += 2.0 * batch * kWidths[i] * kWidths[i + 1];
  return f;
}

Case mlp_train_step() {
  const int64_t batch = 128;
  const double lr = 0.01;
  auto mlp = std::make_shared<Mlp>();
  for (auto& p : mlp->w) p.requires_grad_();
  for (auto& p : mlp->b) p.requires_grad_();
  for (auto& p : mlp->tw) p.requires_grad_();
  for (auto& p : mlp->tb) p.requires_grad_();
  auto x = strata::rand({batch, kWidths[0]});
  auto labels = strata::randint(0, kWidths.back(), {batch});
  auto tx = to_torch(x), tlabels = to_torch(labels);
  auto losses = std::make_shared<std::array<double, 2>>();

  // Forward, 3 weight gradients, 2 input gradients (the input needs none).
  double flops = 3 * mlp_forward_flops(batch) - 2.0 * batch * kWidths[0] * kWidths[1];
  Case c{"MLP train step, batch 128", "linear+relu, cross-entropy, backward, SGD (same math both sides)", flops};
  c.strata.run = [=] {
    strata::Tensor loss = strata::cross_entropy(mlp->forward(x), labels);
    loss.backward();
    strata::NoGradGuard g;
    for (auto* params : {&mlp->w, &mlp->b})
      for (strata::Tensor& p : *params) {
        strata::add_(p, p.grad(), -lr);
        p.zero_grad();
      }
    (*losses)[0] = loss.item<double>();
  };
  c.torch.run = [=] {
    torch::Tensor loss = torch::nn::functional::cross_entropy(mlp->forward(tx), tlabels);
    loss.backward();
    torch::NoGradGuard g;
    for (auto* params : {&mlp->tw, &mlp->tb})
      for (torch::Tensor& p : *params) {
        p.add_(p.grad(), -lr);
        p.mutable_grad() = torch::Tensor();  // set_to_none, as Strata's zero_grad
      }
    (*losses)[1] = loss.item<double>();
  };
  c.max_diff = [=] { return std::abs((*losses)[0] - (*losses)[1]); };  // last losses, same steps taken
  return c;
}

Case mlp_inference() {
  auto mlp = std::make_shared<Mlp>();
  auto x = strata::rand({1, kWidths[0]});
  auto tx = to_torch(x);
  Case c{"MLP forward, batch 1", "linear+relu without grad", mlp_forward_flops(1)};
  c.strata.run = [=] { strata::NoGradGuard g; mlp->forward(x); };
  c.torch.run = [=] { torch::InferenceMode g; mlp->forward(tx); };
  c.max_diff = [=] {
    strata::NoGradGuard g;
    torch::InferenceMode tg;
    return max_rel_diff(mlp->forward(x), mlp->forward(tx));
  };
  return c;
}

}  // namespace

std::vector<Case> dense_cases() { return {sgemm(), batched_matmul(), mlp_train_step(), mlp_inference()}; }

}  // namespace bench
