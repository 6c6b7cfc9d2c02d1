#include "int8_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "oneapi/dnnl/dnnl.hpp"
#include "strata/core/error.hpp"

namespace strata::nn::detail {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

// The int8 layers' own engine and a stream per thread: the kernels' (kernels/cpu/dnnl_context)
// are private to ops. Every primitive here gets its own scratchpad (user mode), so one made on a
// thread may run on another (the reason kernels/cpu does the same).
dnnl::engine& int8_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}
dnnl::stream& int8_stream() {
  thread_local dnnl::stream stream(int8_engine());
  return stream;
}

}  // namespace

Int8Weights pack_int8_weights(const Tensor& W, const Tensor& w_scale, const Tensor& b, int64_t out, double input_scale,
                              const std::string& owner) {
  STRATA_CHECK(W.dtype() == kFloat32 && w_scale.dtype() == kFloat32, owner, ": W and w_scale must be float32, got ",
               dtype_name(W.dtype()), " and ", dtype_name(w_scale.dtype()));
  STRATA_CHECK(w_scale.dim() == 1 && w_scale.numel() == out, owner, ": w_scale must have shape [", out, "], got ",
               w_scale.shape().str());
  STRATA_CHECK(W.dim() >= 1 && W.shape().back() == out, owner, ": W's last axis must be ", out, ", got ",
               W.shape().str());
  Int8Weights packed;
  const std::vector<float> w = W.contiguous().to_vector<float>();
  packed.values.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    STRATA_CHECK(std::isfinite(w[i]), owner, ": W[", i, "] is ", w[i], "; int8 weights must be finite");
    packed.values[i] = static_cast<int8_t>(std::clamp(std::nearbyint(w[i]), -127.0f, 127.0f));
  }
  const std::vector<float> s = w_scale.contiguous().to_vector<float>();
  packed.scales.resize(s.size());
  for (size_t o = 0; o < s.size(); ++o) {
    const double scale = input_scale * s[o];
    STRATA_CHECK(std::isfinite(s[o]) && s[o] > 0 && std::isfinite(scale) && scale > 0, owner, ": w_scale[", o, "] is ",
                 s[o], "; the per-channel steps must be finite and > 0");
    packed.scales[o] = static_cast<float>(scale);
  }
  if (b.defined()) {
    STRATA_CHECK(b.dtype() == kFloat32 && b.dim() == 1 && b.numel() == out, owner, ": b must be float32 [", out,
                 "], got ", dtype_name(b.dtype()), " ", b.shape().str());
    packed.bias = b.contiguous().to_vector<float>();
    for (size_t o = 0; o < packed.bias.size(); ++o) {
      // oneDNN 2.x adds an int8 primitive's bias to the accumulator before the output scale.
      const float in_accumulator = packed.bias[o] / packed.scales[o];
      STRATA_CHECK(std::isfinite(in_accumulator), owner, ": b[", o, "] is ", packed.bias[o],
                   "; it must be finite (and finite once divided by its channel's step)");
      packed.bias[o] = in_accumulator;
    }
  }
  return packed;
}

void quantize_u8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* q) {
  const float zp = static_cast<float>(zero_point);
  for (int64_t i = 0; i < n; ++i) {
    // The bound first in each comparison: a NaN input lands on 0, never on an undefined cast.
    const float v = std::nearbyint(x[i] / scale) + zp;
    q[i] = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v)));
  }
}

struct Int8Kernel::Plan {
  dnnl::primitive primitive;
  memory src, dst, weights, bias, scratchpad, zero_point;
  std::unordered_map<int, memory> args;  // made once: a call only points src and dst at its data
};

Int8Kernel::Int8Kernel(Int8Weights weights, int64_t c, int64_t o, int32_t zero_point, bool relu, bool convolution)
    : weights_(std::move(weights)), in_(c), out_(o), conv_(convolution), zero_point_(zero_point), relu_(relu) {}

Int8Kernel::~Int8Kernel() = default;

Int8Kernel::Plan& Int8Kernel::plan_for(const Shape& src_shape, const Shape& dst_shape,
                                       const Int8ConvGeometry* geometry) {
  const std::vector<int64_t> key(src_shape.begin(), src_shape.end());
  if (auto it = plans_.find(key); it != plans_.end()) return *it->second;
  if (plans_.size() >= kMaxPlans) plans_.clear();  // inputs of ever new sizes: start over
  try {
    return *plans_.emplace(key, make_plan(src_shape, dst_shape, geometry)).first->second;
  } catch (const dnnl::error& e) {
    throw Error(std::string("int8 ") + (conv_ ? "convolution" : "matmul") + " of input " + src_shape.str() +
                ": oneDNN made no primitive (" + e.what() + ")");
  }
}

std::unique_ptr<Int8Kernel::Plan> Int8Kernel::make_plan(const Shape& src_shape, const Shape& dst_shape,
                                                        const Int8ConvGeometry* geometry) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_output_scales(1 << 1, weights_.scales);  // per output channel: axis 1 of [m, n] and of NCHW
  if (zero_point_ != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  if (relu_) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  const bool has_bias = !weights_.bias.empty();
  auto plan = std::make_unique<Plan>();
  dnnl::primitive_desc_base pd;
  memory::desc user_weights;
  dnnl::engine& engine = int8_engine();
  if (!conv_) {
    const memory::desc src_md({src_shape[0], in_}, DT::u8, Tag::ab), dst_md({dst_shape[0], out_}, DT::f32, Tag::ab),
        w_md({in_, out_}, DT::s8, Tag::any), b_md({1, out_}, DT::f32, Tag::ab);
    user_weights = memory::desc({in_, out_}, DT::s8, Tag::ab);
    auto desc = has_bias ? dnnl::matmul::desc(src_md, w_md, b_md, dst_md) : dnnl::matmul::desc(src_md, w_md, dst_md);
    dnnl::matmul::primitive_desc mpd(desc, attr, engine);
    plan->primitive = dnnl::matmul(mpd);
    pd = mpd;
  } else {
    STRATA_CHECK(geometry != nullptr, "int8 convolution: no geometry");
    const Int8ConvGeometry& g = *geometry;
    const memory::desc src_md({src_shape[0], in_, src_shape[1], src_shape[2]}, DT::u8, Tag::nhwc),
        dst_md({dst_shape[0], out_, dst_shape[1], dst_shape[2]}, DT::f32, Tag::nhwc),
        w_md({out_, in_, g.kh, g.kw}, DT::s8, Tag::any), b_md({out_}, DT::f32, Tag::a);
    user_weights = memory::desc({out_, in_, g.kh, g.kw}, DT::s8, Tag::hwio);
    const memory::dims strides{g.stride_h, g.stride_w}, dilates{g.dilation_h - 1, g.dilation_w - 1},
        pad_l{g.pad_top, g.pad_left}, pad_r{g.pad_bottom, g.pad_right};
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto algo = dnnl::algorithm::convolution_direct;
    auto desc =
        has_bias
            ? dnnl::convolution_forward::desc(kind, algo, src_md, w_md, b_md, dst_md, strides, dilates, pad_l, pad_r)
            : dnnl::convolution_forward::desc(kind, algo, src_md, w_md, dst_md, strides, dilates, pad_l, pad_r);
    dnnl::convolution_forward::primitive_desc cpd(desc, attr, engine);
    plan->primitive = dnnl::convolution_forward(cpd);
    pd = cpd;
  }
  // Weights into the primitive's layout (with the zero-point compensation it may carry), once.
  memory user(user_weights, engine, weights_.values.data());
  plan->weights = memory(pd.weights_desc(0), engine);
  dnnl::reorder(user, plan->weights).execute(int8_stream(), user, plan->weights);
  int8_stream().wait();
  if (has_bias) plan->bias = memory(pd.weights_desc(1), engine, weights_.bias.data());
  plan->scratchpad = memory(pd.scratchpad_desc(), engine);
  plan->src = memory(pd.src_desc(0), engine, nullptr);
  plan->dst = memory(pd.dst_desc(0), engine, nullptr);
  plan->args = {{DNNL_ARG_SRC, plan->src},
                {DNNL_ARG_WEIGHTS, plan->weights},
                {DNNL_ARG_DST, plan->dst},
                {DNNL_ARG_SCRATCHPAD, plan->scratchpad}};
  if (has_bias) plan->args.emplace(DNNL_ARG_BIAS, plan->bias);
  if (zero_point_ != 0) {
    plan->zero_point = memory({{1}, DT::s32, Tag::a}, engine, &zero_point_);
    plan->args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, plan->zero_point);
  }
  return plan;
}

void Int8Kernel::run(const uint8_t* src, const Shape& src_shape, float* dst, const Shape& dst_shape,
                     const Int8ConvGeometry* geometry) {
  Plan& plan = plan_for(src_shape, dst_shape, geometry);
  plan.src.set_data_handle(const_cast<uint8_t*>(src));
  plan.dst.set_data_handle(dst);
  plan.primitive.execute(int8_stream(), plan.args);
  int8_stream().wait();
}

}  // namespace strata::nn::detail
