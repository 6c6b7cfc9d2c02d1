#include "kernels/cpu/matmul.hpp"

#include "kernels/cpu/bf16_round.hpp"
#include "kernels/cpu/dnnl_context.hpp"
#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/gemv.hpp"
#include "kernels/cpu/loops.hpp"
#include "strata/core/autocast.hpp"

namespace strata::kernels::cpu {
namespace {

using dnnl::memory;

// oneDNN takes plain strided matrices when one of the two matrix axes is dense.
Tensor usable(const Tensor& t) {
  const Shape& s = t.strides();
  bool row_major = s[2] == 1 || t.shape()[2] == 1;
  bool col_major = s[1] == 1 || t.shape()[1] == 1;
  return (row_major || col_major) ? t : contiguous_copy(t);
}

memory::dims dims_of(const Shape& s) { return memory::dims(s.begin(), s.end()); }
memory::dims strides_of(const Tensor& t) {
  memory::dims st(t.strides().begin(), t.strides().end());
  if (t.shape()[0] == 1) st[0] = t.shape()[1] * t.shape()[2];  // any value is fine for a size-1 axis
  return st;
}

struct MatmulPrimitive {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

void matmul_dnnl(const Tensor& a, const Tensor& b, const Tensor& bias, Tensor& out) {
  static PrimitiveCache<MatmulPrimitive> cache;
  const auto& as = a.shape();
  const auto& bs = b.shape();
  auto sa = strides_of(a), sb = strides_of(b);
  std::string key = key_of("matmul", as[0], as[1], as[2], sa[0], sa[1], sa[2], bs[0], bs[1], bs[2], sb[0], sb[1], sb[2],
                           bias.defined(), static_cast<int>(a.dtype()));
  auto& entry = cache.get(key, [&] {
    memory::desc a_md(dims_of(as), dnnl_type(a.dtype()), sa);  // f32, or bf16 under autocast
    memory::desc b_md(dims_of(bs), dnnl_type(b.dtype()), sb);
    memory::desc c_md(dims_of(out.shape()), memory::data_type::f32, memory::format_tag::abc);
    if (bias.defined()) {
      memory::desc bias_md({1, 1, bs[2]}, memory::data_type::f32, memory::format_tag::abc);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, bias_md, c_md), own_scratchpad(), dnnl_engine());
      return MatmulPrimitive{pd, dnnl::matmul(pd)};
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), own_scratchpad(), dnnl_engine());
    return MatmulPrimitive{pd, dnnl::matmul(pd)};
  });
  const auto& pd = entry.pd;
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, memory(pd.src_desc(), dnnl_engine(), a.raw_data())},
      {DNNL_ARG_WEIGHTS, memory(pd.weights_desc(), dnnl_engine(), b.raw_data())},
      {DNNL_ARG_DST, memory(pd.dst_desc(), dnnl_engine(), out.raw_data())}};
  if (bias.defined()) args.emplace(DNNL_ARG_BIAS, memory(pd.bias_desc(), dnnl_engine(), bias.raw_data()));
  run_primitive(entry.prim, pd, std::move(args));
}

template <class T>
void matmul_loops(const Tensor& a, const Tensor& b, const Tensor& bias, Tensor& out) {
  const int64_t B = out.shape()[0], M = out.shape()[1], K = a.shape()[2], N = out.shape()[2];
  const T* pa = static_cast<const T*>(a.raw_data());
  const T* pb = static_cast<const T*>(b.raw_data());
  T* po = static_cast<T*>(out.raw_data());
  const auto& sa = a.strides();
  const auto& sb = b.strides();
  const T* pbias = bias.defined() ? static_cast<const T*>(bias.raw_data()) : nullptr;
  parallel_for(B * M, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t bi = r / M, i = r % M;
      const T* arow = pa + (a.shape()[0] == 1 ? 0 : bi * sa[0]) + i * sa[1];
      const T* bmat = pb + (b.shape()[0] == 1 ? 0 : bi * sb[0]);
      T* orow = po + r * N;
      for (int64_t j = 0; j < N; ++j) orow[j] = pbias ? pbias[j] : T(0);
      for (int64_t k = 0; k < K; ++k) {
        T av = arow[k * sa[2]];
        const T* brow = bmat + k * sb[1];
        for (int64_t j = 0; j < N; ++j) orow[j] += av * brow[j * sb[2]];
      }
    }
  });
}

}  // namespace

Tensor matmul3d(const Tensor& a_in, const Tensor& b_in, const Tensor& bias_in) {
  STRATA_CHECK(a_in.dtype() == b_in.dtype(), "matmul: operands have dtypes ", dtype_name(a_in.dtype()), " and ",
               dtype_name(b_in.dtype()));
  Tensor a = usable(a_in), b = usable(b_in);
  Tensor bias = dense(bias_in);
  const int64_t B = std::max(a.shape()[0], b.shape()[0]);
  Tensor out = Tensor::empty({B, a.shape()[1], b.shape()[2]}, a.dtype(), a.device());
  if (out.numel() == 0) return out;
  if (a.shape()[2] == 0) {
    fill(out, 0);
    if (bias.defined()) add_inplace(out, bias);
    return out;
  }
  if (a.dtype() == kFloat32 && autocast_bf16_active()) {
    // Autocast: operands rounded to bf16 (bf16_round.hpp), products accumulated into float32. A
    // transposed b (the backward's W^T) keeps its layout, as in float32; a transposed a (x^T in
    // the weight gradient) is made row-major, oneDNN's preferred source: its AMX matmul took
    // 0.58 ms on the CNN's 3136x128 source row-major, 0.70-0.76 ms column-major (best of 40).
    matmul_dnnl(bf16_operand(a), bf16_operand(b, true), bias, out);
    return out;
  }
  if (a.dtype() == kFloat32 && out.shape()[0] == 1 && out.shape()[1] == 1 && a.strides()[2] == 1 &&
      b.strides()[2] == 1) {  // one row times a row-major matrix: the batch-1 Dense
    gemv_f32(static_cast<const float*>(a.raw_data()), static_cast<const float*>(b.raw_data()), b.strides()[1],
             bias.defined() ? static_cast<const float*>(bias.raw_data()) : nullptr, static_cast<float*>(out.raw_data()),
             a.shape()[2], b.shape()[2]);
    return out;
  }
  if (a.dtype() == kFloat32) {
    matmul_dnnl(a, b, bias, out);
    return out;
  }
  dispatch_floating(a.dtype(), "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    matmul_loops<T>(a, b, bias, out);
  });
  return out;
}

}  // namespace strata::kernels::cpu
