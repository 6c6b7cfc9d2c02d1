// 2-D convolution in NHWC, the layout Strata (TensorLayer) uses. libtorch gets channels_last
// tensors: logically NCHW, laid out NHWC in memory, so both sides do the same NHWC work.
#include <memory>

#include "cases.hpp"
#include "strata/strata.hpp"

namespace bench {
namespace {

constexpr int64_t kN = 32, kH = 56, kW = 56, kC = 64, kO = 64, kK = 3;
constexpr double kFlops = 2.0 * kN * kH * kW * kO * kC * kK * kK;  // forward, SAME, stride 1

const strata::ConvOptions kSame{.padding = strata::Padding::same()};

// NHWC strata tensor -> the same values as a channels_last NCHW torch tensor (a view, no copy).
torch::Tensor nhwc_to_torch(const strata::Tensor& t) { return to_torch(t).permute({0, 3, 1, 2}); }

struct ConvInputs {
  strata::Tensor x = strata::randn({kN, kH, kW, kC});
  strata::Tensor w = strata::normal({kK, kK, kC, kO}, 0, 0.05);  // [kh, kw, in, out]
  torch::Tensor tx = nhwc_to_torch(x);
  // [kh, kw, in, out] -> [out, in, kh, kw], stored channels_last ([out, kh, kw, in] in memory).
  torch::Tensor tw = to_torch(w).permute({3, 2, 0, 1}).contiguous(torch::MemoryFormat::ChannelsLast);
};

torch::Tensor torch_conv(const torch::Tensor& x, const torch::Tensor& w) {
  return torch::conv2d(x, w, {}, /*stride=*/1, /*padding=*/1);
}

Case conv_forward() {
  auto in = std::make_shared<ConvInputs>();
  Case c{"conv2d fwd NHWC 32x56x56 64->64 3x3", "oneDNN conv NHWC / oneDNN (mkldnn) conv, channels_last", kFlops};
  c.strata.run = [=] { strata::NoGradGuard g; strata::conv2d(in->x, in->w, {}, kSame); };
  c.torch.run = [=] { torch::InferenceMode g; torch_conv(in->tx, in->tw); };
  c.max_diff = [=] {
    strata::NoGradGuard g;
    torch::InferenceMode tg;
    torch::Tensor ty = torch_conv(in->tx, in->tw);
    STRATA_CHECK(ty.is_contiguous(torch::MemoryFormat::ChannelsLast), "bench: libtorch conv left channels_last");
    return max_rel_diff(strata::conv2d(in->x, in->w, {}, kSame), ty.permute({0, 2, 3, 1}));
  };
  return c;
}

// Backward only: the forward runs untimed in setup; the timed part computes dx and dw.
Case conv_backward() {
  auto in = std::make_shared<ConvInputs>();
  in->x.requires_grad_();
  in->w.requires_grad_();
  in->tx.requires_grad_();
  in->tw.requires_grad_();
  auto gy = strata::randn({kN, kH, kW, kO});
  auto tgy = nhwc_to_torch(gy);
  auto y = std::make_shared<strata::Tensor>();
  auto ty = std::make_shared<torch::Tensor>();

  Case c{"conv2d bwd (dx+dw), same shapes", "oneDNN conv bwd data + bwd weights / mkldnn conv backward", 2 * kFlops};
  c.strata.setup = [=] {
    in->x.zero_grad();
    in->w.zero_grad();
    *y = strata::conv2d(in->x, in->w, {}, kSame);
  };
  c.strata.run = [=] { y->backward(gy); };
  c.torch.setup = [=] {
    in->tx.mutable_grad() = torch::Tensor();
    in->tw.mutable_grad() = torch::Tensor();
    *ty = torch_conv(in->tx, in->tw);
  };
  c.torch.run = [=] { ty->backward(tgy); };
  c.max_diff = [=] {
    // The gradients of the last timed backward on each side.
    double dx = max_rel_diff(in->x.grad(), in->tx.grad().permute({0, 2, 3, 1}));
    double dw = max_rel_diff(in->w.grad(), in->tw.grad().permute({2, 3, 1, 0}));  // [kh, kw, in, out]
    return std::max(dx, dw);
  };
  return c;
}

}  // namespace

std::vector<Case> conv_cases() { return {conv_forward(), conv_backward()}; }

}  // namespace bench
