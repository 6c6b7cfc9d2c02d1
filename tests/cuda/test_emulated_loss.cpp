// The CUDA backend's loss and training kernels (loss.cu, training.cu), emulated, against the CPU's,
// beyond the conformance table's small float64 cases: every loss on float64 and float32 with every
// reduction, large enough that a reduced loss sums its terms in two passes, and its gradients
// (targets' too); the error messages of class ids out of range; dropout drawing exactly the CPU's
// mask on a strided view; Adam, AdamW and AMSGrad over several steps.
#include <gtest/gtest.h>

#include <memory>

#include "cuda/emulated_compare.hpp"
#include "strata/dispatch/dropout.hpp"
#include "strata/dispatch/loss.hpp"

namespace strata::testing {
namespace {

const char* name(Reduction reduction) {
  static const char* const names[] = {"none", "mean", "sum"};
  return names[int(reduction)];
}

TEST(EmulatedLoss, RunsTheCudaKernels) {
  install_emulated_cuda();
  STRATA_CUDA_LOSS_STUBS(STRATA_EXPECT_CUDA_KERNEL)
  STRATA_CUDA_TRAINING_STUBS(STRATA_EXPECT_CUDA_KERNEL)
}

// [123, 97]: 11931 terms, more than the 4096 partial sums a reduced loss adds first.
TEST(EmulatedLoss, EveryLossOnLargeInputsMatchesTheCpuWithGradients) {
  for (DType dtype : {kFloat64, kFloat32})
    for (Reduction reduction : {Reduction::none, Reduction::mean, Reduction::sum}) {
      Generator gen(5);
      const Tensor a = randn({123, 97}, {dtype}, &gen), b = randn({123, 97}, {dtype}, &gen);
      const Tensor ids = randint(0, 97, {123}, kInt64, &gen), probs = softmax(b, -1);
      const std::string what = std::string(dtype_name(dtype)) + " " + name(reduction);
      const auto expect_loss = [&](const std::string& loss, const Tensors& inputs, auto fn) {
        expect_same_as_cpu(loss + " " + what, inputs, fn, Grads::yes);
      };
      expect_loss("mse", {a, b}, [&](const Tensors& in) { return mse_loss(in[0], in[1], reduction); });
      expect_loss("l1", {a, b}, [&](const Tensors& in) { return l1_loss(in[0], in[1], reduction); });
      expect_loss("huber", {a, b}, [&](const Tensors& in) { return huber_loss(in[0], in[1], reduction, 0.7); });
      expect_loss("bce_with_logits", {a, b},
                  [&](const Tensors& in) { return binary_cross_entropy_with_logits(in[0], in[1], reduction); });
      expect_loss("cross_entropy, class ids", {a, ids},
                  [&](const Tensors& in) { return cross_entropy(in[0], in[1], reduction); });
      expect_loss("cross_entropy, probabilities", {a, probs},
                  [&](const Tensors& in) { return cross_entropy(in[0], in[1], reduction); });
      expect_loss("nll_loss, int32 class ids", {a, ids.to(kInt32)},
                  [&](const Tensors& in) { return nll_loss(in[0], in[1], reduction); });
    }
}

TEST(EmulatedLoss, ClassIdsOutOfRangeRaiseTheCpusErrors) {
  Generator gen(6);
  const Tensor logits = randn({4, 5}, {kFloat64}, &gen);
  const Tensor ids = from_vector(std::vector<int64_t>{0, 7, -1, 2}, {4});
  for (const Tensor& t : {ids, ids.to(kInt32)}) {
    const std::string what = dtype_name(t.dtype());
    expect_same_error(what + " cross_entropy", {logits, t},
                      [](const Tensors& in) { return cross_entropy(in[0], in[1]); });
    expect_same_error(what + " nll_loss", {logits, t}, [](const Tensors& in) { return nll_loss(in[0], in[1]); });
  }
  expect_same_error("uint8 check_class_ids", {from_vector(std::vector<uint8_t>{0, 7, 2, 1}, {4})},
                    [](const Tensors& in) { dispatch::check_class_ids(in[0], 5, "test"); });
}

TEST(EmulatedDropout, DropsExactlyTheCpusElements) {
  for (DType dtype : {kFloat64, kFloat32}) {
    Generator gen(7);
    const Tensor x = randn({37, 53}, {dtype}, &gen);
    for (double p : {0.0, 0.1, 0.5, 0.9, 0.999999})
      for (uint64_t seed : {uint64_t{1}, uint64_t{0xdeadbeefcafef00d}})
        expect_same_as_cpu(
            dtype_name(dtype) + (" p " + std::to_string(p)) + " seed " + std::to_string(seed), {x},
            [&](const Tensors& in) { return dispatch::dropout_apply(in[0].transpose(0, 1), p, seed); }, Grads::no, 0);
  }
}

// Five steps on a [7, 11] parameter, the loss making every gradient differ.
TEST(EmulatedAdam, AdamAdamWAndAmsgradStepsMatchTheCpu) {
  for (DType dtype : {kFloat64, kFloat32})
    for (bool decoupled : {false, true})
      for (bool amsgrad : {false, true}) {
        Generator gen(3);
        const Tensor start = randn({7, 11}, {dtype}, &gen), target = randn({7, 11}, {dtype}, &gen);
        const std::string what =
            std::string(decoupled ? "AdamW " : "Adam ") + (amsgrad ? "amsgrad " : "") + dtype_name(dtype);
        expect_same_as_cpu(what, {start, target}, [&](const Tensors& in) {
          Tensor param = in[0];
          param.requires_grad_();
          std::unique_ptr<optim::Adam> adam;
          if (decoupled)
            adam = std::make_unique<optim::AdamW>(
                Tensors{param}, optim::AdamWOptions{.lr = 0.1, .weight_decay = 0.1, .amsgrad = amsgrad});
          else
            adam = std::make_unique<optim::Adam>(
                Tensors{param}, optim::AdamOptions{.lr = 0.1, .weight_decay = 0.05, .amsgrad = amsgrad});
          for (int step = 0; step < 5; ++step) {
            adam->zero_grad();
            mse_loss(param * param, in[1]).backward();
            adam->step();
          }
          return param.detach();
        });
      }
}

}  // namespace
}  // namespace strata::testing
