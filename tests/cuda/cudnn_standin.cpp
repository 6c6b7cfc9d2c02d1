#include "cuda/cudnn_standin.hpp"

#include <atomic>
#include <cstring>
#include <vector>

#include "kernels/cuda/cudnn_api.hpp"

namespace strata::testing {
namespace {

using kernels::cuda::CudnnAlgoPerf;
using kernels::cuda::CudnnApi;
using kernels::cuda::CudnnDesc;
using kernels::cuda::CudnnHandle;
namespace e = kernels::cuda::cudnn_enum;

constexpr int kBadParam = 3, kNotSupported = 9;  // cudnnStatus_t values
constexpr int kGoodAlgo = 1;
constexpr size_t kWorkspace = 4096;

struct TensorDesc {
  int format = -1, type = -1;
  std::vector<int> dims;  // N, C, spatial...
};
struct ConvDesc {
  std::vector<int> pad, stride, dilation;
  int mode = -1, groups = 1, math = -1;
};

std::atomic<bool> enabled{false};
std::atomic<int> runs{0};

const char* error_string(int status) { return status == kBadParam ? "CUDNN_STATUS_BAD_PARAM" : "stand-in error"; }
int create_tensor(CudnnDesc* d) { return *d = new TensorDesc, 0; }
int destroy_tensor(CudnnDesc d) { return delete static_cast<TensorDesc*>(d), 0; }
int set_tensor(CudnnDesc d, int format, int type, int n, const int* dims) {
  *static_cast<TensorDesc*>(d) = {format, type, std::vector<int>(dims, dims + n)};
  return 0;
}
int set_filter(CudnnDesc d, int type, int format, int n, const int* dims) { return set_tensor(d, format, type, n, dims); }
int create_conv(CudnnDesc* d) { return *d = new ConvDesc, 0; }
int destroy_conv(CudnnDesc d) { return delete static_cast<ConvDesc*>(d), 0; }
int set_conv(CudnnDesc d, int n, const int* pad, const int* stride, const int* dilation, int mode, int) {
  auto* c = static_cast<ConvDesc*>(d);
  c->pad.assign(pad, pad + n), c->stride.assign(stride, stride + n), c->dilation.assign(dilation, dilation + n);
  c->mode = mode;
  return 0;
}
int set_groups(CudnnDesc d, int groups) { return static_cast<ConvDesc*>(d)->groups = groups, 0; }
int set_math(CudnnDesc d, int math) { return static_cast<ConvDesc*>(d)->math = math, 0; }

// The geometry of a call, checked as cuDNN checks it: NHWC float tensors, a cross-correlation in
// FMA math, channels that the groups divide, and an output of the size the rest implies.
struct Geometry {
  const TensorDesc &x, &w, &y;
  const ConvDesc& c;
  bool valid() const {
    const size_t n = x.dims.size();
    if (n < 4 || w.dims.size() != n || y.dims.size() != n || c.pad.size() != n - 2) return false;
    for (const TensorDesc* t : {&x, &w, &y})
      if (t->format != e::kNhwc || t->type != e::kFloat) return false;
    if (c.mode != e::kCrossCorrelation || c.math != e::kFmaMath || c.groups < 1) return false;
    if (x.dims[1] != w.dims[1] * c.groups || w.dims[0] != y.dims[1] || y.dims[1] % c.groups || x.dims[0] != y.dims[0])
      return false;
    for (size_t a = 0; a + 2 < n; ++a) {
      const int span = c.dilation[a] * (w.dims[a + 2] - 1) + 1;
      if (y.dims[a + 2] != (x.dims[a + 2] + 2 * c.pad[a] - span) / c.stride[a] + 1) return false;
    }
    return true;
  }
  // Every (sample, output position, output channel, tap, group channel) with the input position
  // it reads: f(x index, w index, y index), offsets into the NHWC memory of each.
  template <class F>
  void each_term(F f) const {
    const size_t sp = x.dims.size() - 2;
    const int N = x.dims[0], C = x.dims[1], K = y.dims[1], Cg = w.dims[1], Kg = K / c.groups;
    int64_t out_positions = 1, taps = 1;
    for (size_t a = 0; a < sp; ++a) out_positions *= y.dims[a + 2], taps *= w.dims[a + 2];
    std::vector<int> op(sp), tp(sp);
    for (int n = 0; n < N; ++n)
      for (int64_t o = 0; o < out_positions; ++o)
        for (int64_t t = 0; t < taps; ++t) {
          int64_t of = o, tf = t, in_flat = n, valid = 1;
          for (size_t a = sp; a-- > 0;) op[a] = static_cast<int>(of % y.dims[a + 2]), of /= y.dims[a + 2];
          for (size_t a = sp; a-- > 0;) tp[a] = static_cast<int>(tf % w.dims[a + 2]), tf /= w.dims[a + 2];
          for (size_t a = 0; a < sp; ++a) {
            const int i = op[a] * c.stride[a] - c.pad[a] + tp[a] * c.dilation[a];
            if (i < 0 || i >= x.dims[a + 2]) valid = 0;
            in_flat = in_flat * x.dims[a + 2] + i;
          }
          if (!valid) continue;
          for (int k = 0; k < K; ++k)
            for (int cg = 0; cg < Cg; ++cg)
              f((in_flat * C) + k / Kg * Cg + cg, (k * taps + t) * Cg + cg, (n * out_positions + o) * K + k);
        }
  }
};

int64_t elements(const TensorDesc& t) {
  int64_t n = 1;
  for (int d : t.dims) n *= d;
  return n;
}

int algorithms(int requested, int* returned, CudnnAlgoPerf* results) {
  if (requested < 2) return kBadParam;
  results[0] = {0, kNotSupported, 0, 0, 0, 0, {}};  // the wrapper must skip a failed ranking
  results[1] = {kGoodAlgo, 0, 0, kWorkspace, 0, 0, {}};
  *returned = 2;
  return 0;
}
int workspace_of(int algo, size_t* bytes) { return algo == kGoodAlgo ? (*bytes = kWorkspace, 0) : kNotSupported; }

// out = alpha * sum + beta * out, where sum gathers the terms into a scratch of out's size.
template <class Term>
int run(const Geometry& g, int algo, void* workspace, size_t bytes, const void* alpha, const void* beta,
        const TensorDesc& out_desc, void* out, Term term) {
  if (!g.valid() || algo != kGoodAlgo || !workspace || bytes < kWorkspace) return kBadParam;
  std::memset(workspace, 0xff, bytes);  // scratch: nothing may depend on what was there
  std::vector<double> sum(elements(out_desc), 0.0);
  g.each_term([&](int64_t xi, int64_t wi, int64_t yi) { term(sum, xi, wi, yi); });
  auto* o = static_cast<float*>(out);
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  for (size_t i = 0; i < sum.size(); ++i) o[i] = static_cast<float>(a * sum[i] + (b == 0 ? 0.0 : b * o[i]));
  ++runs;
  return 0;
}

const TensorDesc& T(CudnnDesc d) { return *static_cast<const TensorDesc*>(d); }
const ConvDesc& C(CudnnDesc d) { return *static_cast<const ConvDesc*>(d); }

CudnnApi make_api() {
  CudnnApi api{};
  api.get_error_string = error_string;
  api.create_tensor_desc = create_tensor, api.set_tensor_nd_desc_ex = set_tensor;
  api.destroy_tensor_desc = destroy_tensor;
  api.create_filter_desc = create_tensor, api.set_filter_nd_desc = set_filter, api.destroy_filter_desc = destroy_tensor;
  api.create_conv_desc = create_conv, api.set_conv_nd_desc = set_conv, api.set_conv_group_count = set_groups;
  api.set_conv_math_type = set_math, api.destroy_conv_desc = destroy_conv;
  api.forward_algorithms = [](CudnnHandle, CudnnDesc, CudnnDesc, CudnnDesc, CudnnDesc, int n, int* r,
                              CudnnAlgoPerf* p) { return algorithms(n, r, p); };
  api.backward_data_algorithms = api.forward_algorithms;
  api.backward_filter_algorithms = api.forward_algorithms;
  api.forward_workspace = [](CudnnHandle, CudnnDesc, CudnnDesc, CudnnDesc, CudnnDesc, int algo, size_t* bytes) {
    return workspace_of(algo, bytes);
  };
  api.backward_data_workspace = api.forward_workspace;
  api.backward_filter_workspace = api.forward_workspace;
  api.forward = [](CudnnHandle, const void* alpha, CudnnDesc xd, const void* x, CudnnDesc wd, const void* w,
                   CudnnDesc cd, int algo, void* ws, size_t bytes, const void* beta, CudnnDesc yd, void* y) {
    const auto* px = static_cast<const float*>(x);
    const auto* pw = static_cast<const float*>(w);
    return run({T(xd), T(wd), T(yd), C(cd)}, algo, ws, bytes, alpha, beta, T(yd), y,
               [&](std::vector<double>& s, int64_t xi, int64_t wi, int64_t yi) { s[yi] += double(px[xi]) * pw[wi]; });
  };
  api.backward_data = [](CudnnHandle, const void* alpha, CudnnDesc wd, const void* w, CudnnDesc dyd, const void* dy,
                         CudnnDesc cd, int algo, void* ws, size_t bytes, const void* beta, CudnnDesc dxd, void* dx) {
    const auto* pw = static_cast<const float*>(w);
    const auto* pdy = static_cast<const float*>(dy);
    return run({T(dxd), T(wd), T(dyd), C(cd)}, algo, ws, bytes, alpha, beta, T(dxd), dx,
               [&](std::vector<double>& s, int64_t xi, int64_t wi, int64_t yi) { s[xi] += double(pdy[yi]) * pw[wi]; });
  };
  api.backward_filter = [](CudnnHandle, const void* alpha, CudnnDesc xd, const void* x, CudnnDesc dyd,
                           const void* dy, CudnnDesc cd, int algo, void* ws, size_t bytes, const void* beta,
                           CudnnDesc dwd, void* dw) {
    const auto* px = static_cast<const float*>(x);
    const auto* pdy = static_cast<const float*>(dy);
    return run({T(xd), T(dwd), T(dyd), C(cd)}, algo, ws, bytes, alpha, beta, T(dwd), dw,
               [&](std::vector<double>& s, int64_t xi, int64_t wi, int64_t yi) { s[wi] += double(px[xi]) * pdy[yi]; });
  };
  api.float32_math = e::kFmaMath;
  return api;
}

}  // namespace

void use_cudnn_standin(bool on) { enabled = on; }
int cudnn_standin_runs() { return runs; }

}  // namespace strata::testing

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

const CudnnApi* cudnn() {
  static const CudnnApi api = testing::make_api();
  return testing::enabled ? &api : nullptr;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
