// Whole networks built from nn layers against the same networks in torch::nn: training
// throughput (Adam, batch 128) and batch-1 inference latency, the figures issue 3 sets targets
// for. Both sides start from their own random weights; the work per step is identical.
#include <memory>

#include "cases.hpp"
#include "mlp_net.hpp"
#include "mnist_cnn.hpp"
#include "strata/strata.hpp"

namespace bench {
namespace {

constexpr int64_t kBatch = 128;

template <class StrataNet, class TorchNet>
Case train_case(const char* name, const char* what, std::shared_ptr<StrataNet> net, TorchNet tnet,
                const strata::Tensor& x, const torch::Tensor& tx) {
  auto y = strata::randint(0, 10, {kBatch});
  auto ty = to_torch(y);
  (*net)(x);  // build the weights before handing them to the optimizer
  auto adam = std::make_shared<strata::optim::Adam>(net->trainable_weights());
  auto tadam = std::make_shared<torch::optim::Adam>(tnet->parameters());
  Case c{name, what, double(kBatch), Unit::samples_per_s};
  c.strata.run = [=] {
    strata::Tensor loss = strata::cross_entropy((*net)(x), y);
    adam->zero_grad();
    loss.backward();
    adam->step();
  };
  c.torch.run = [=]() mutable {
    torch::Tensor loss = torch::nn::functional::cross_entropy(tnet->forward(tx), ty);
    tadam->zero_grad();
    loss.backward();
    tadam->step();
  };
  return c;
}

template <class StrataNet, class TorchNet>
Case latency_case(const char* name, const char* what, std::shared_ptr<StrataNet> net, TorchNet tnet,
                  const strata::Tensor& x, const torch::Tensor& tx) {
  (*net)(x);
  net->eval();
  tnet->eval();
  Case c{name, what, 1.0, Unit::us_per_op};
  c.burst = 20;
  c.strata.run = [=] {
    strata::NoGradGuard g;
    (*net)(x);
  };
  c.torch.run = [=]() mutable {
    torch::InferenceMode g;
    tnet->forward(tx);
  };
  return c;
}

}  // namespace

std::vector<Case> network_cases() {
  auto x_flat = strata::rand({kBatch, 784});
  auto x_img = strata::rand({kBatch, 28, 28, 1});
  auto to_nchw_last = [](const strata::Tensor& nhwc) {
    return to_torch(nhwc).permute({0, 3, 1, 2}).contiguous(torch::MemoryFormat::ChannelsLast);
  };
  auto one_flat = strata::rand({1, 784});
  auto one_img = strata::rand({1, 28, 28, 1});
  return {
      train_case("MLP training, Adam, batch 128", "nn::Module Dense/Dropout + optim::Adam / torch::nn + torch::optim",
                 std::make_shared<StrataMlp>(), torch_mlp(), x_flat, to_torch(x_flat)),
      train_case("CNN training, Adam, batch 128", "nn::Conv2d/MaxPool2d/Dense NHWC / torch::nn, channels_last",
                 std::make_shared<StrataMnistCnn>(256), TorchMnistCnn(256), x_img, to_nchw_last(x_img)),
      train_case("TL CNN (dense 1024) training, Adam", "the same with dense 1024 (mnist_cnn.hpp)",
                 std::make_shared<StrataMnistCnn>(1024), TorchMnistCnn(1024), x_img, to_nchw_last(x_img)),
      latency_case("MLP inference, batch 1", "eval mode, no grad", std::make_shared<StrataMlp>(), torch_mlp(), one_flat,
                   to_torch(one_flat)),
      latency_case("CNN inference, batch 1", "eval mode, no grad", std::make_shared<StrataMnistCnn>(256),
                   TorchMnistCnn(256), one_img, to_nchw_last(one_img)),
  };
}

}  // namespace bench
