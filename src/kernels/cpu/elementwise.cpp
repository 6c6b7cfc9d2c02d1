#include "kernels/cpu/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dispatch/unary_formulas.hpp"
#include "kernels/cpu/bf16_round.hpp"
#include "kernels/cpu/loops.hpp"
#include "kernels/cpu/scalar_math.hpp"
#include "strata/dispatch/broadcast.hpp"
#include "strata/dispatch/convert.hpp"

namespace strata::kernels::cpu {
namespace {

// Strides in bytes of `t` seen with shape `out` (broadcast dimensions get stride 0).
Shape broadcast_byte_strides(const Tensor& t, const Shape& out) {
  Shape strides = dispatch::broadcast_strides(t, out);
  for (auto& stride : strides) stride *= static_cast<int64_t>(itemsize(t.dtype()));
  return strides;
}

// out[i] = f(x[i]) with Out/In element types.
template <class Out, class In, class F>
void map1(Tensor& out, const Tensor& x, F f) {
  StridedLoop<2> loop{out.shape(), {broadcast_byte_strides(out, out.shape()), broadcast_byte_strides(x, out.shape())},
                      {static_cast<char*>(out.raw_data()), static_cast<char*>(x.raw_data())}};
  // flatten: `f` must be inlined into the loops for them to vectorise; with ~100 instantiations
  // GCC's inliner would otherwise call it out of line.
  loop.run([&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) __attribute__((flatten)) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else if (s[0] == sizeof(Out) && s[1] == 0) {
      Out v = f(*a);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
    }
  });
}

// out[i] = f(a[i], b[i]) with broadcasting; a and b have type In.
template <class Out, class In, class F>
void map2(Tensor& out, const Tensor& a, const Tensor& b, F f) {
  const Shape& sh = out.shape();
  StridedLoop<3> loop{sh,
                      {broadcast_byte_strides(out, sh), broadcast_byte_strides(a, sh), broadcast_byte_strides(b, sh)},
                      {static_cast<char*>(out.raw_data()), static_cast<char*>(a.raw_data()),
                       static_cast<char*>(b.raw_data())}};
  loop.run([&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) __attribute__((flatten)) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* x = reinterpret_cast<const In*>(p[1]);
    const In* y = reinterpret_cast<const In*>(p[2]);
    constexpr int64_t so = sizeof(Out), si = sizeof(In);
    if (s[0] == so && s[1] == si && s[2] == si) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const In yv = *y;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const In xv = *x;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const In*>(p[1] + i * s[1]), *reinterpret_cast<const In*>(p[2] + i * s[2]));
    }
  });
}

// The unary formulas' math on the CPU: the vectorised float32 approximations of scalar_math.hpp
// where it has them (float64 goes to libm there), the standard library's otherwise.
struct CpuMath : dispatch::StdMath {
  template <class T> STRATA_VECTOR_INLINE static T exp(T v) { return math::exp(v); }
  template <class T> STRATA_VECTOR_INLINE static T tanh(T v) { return math::tanh(v); }
  template <class T> STRATA_VECTOR_INLINE static T sigmoid(T v) { return math::sigmoid(v); }
  template <class T> STRATA_VECTOR_INLINE static T softplus(T v) { return math::softplus(v); }
};

// The op's switch is outside the loops: each op the dtype takes gets a loop of its own formula,
// which GCC vectorises.
template <class T>
void unary_typed(UnaryOp op, Tensor& out, const Tensor& x, T a, T b) {
  dispatch::visit_unary(op, [&](auto kind) {
    constexpr UnaryOp o = decltype(kind)::value;
    if constexpr (dispatch::unary_accepts<o, T>())
      map1<dispatch::unary_result_t<o, T>, T>(out, x,
                                              [a, b](T v) { return dispatch::unary_value<o, CpuMath>(v, a, b); });
  });
}

template <class T>
void binary_arith(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::add: return map2<T, T>(out, a, b, [](T x, T y) { return T(x + y); });
    case BinaryOp::sub: return map2<T, T>(out, a, b, [](T x, T y) { return T(x - y); });
    case BinaryOp::mul: return map2<T, T>(out, a, b, [](T x, T y) { return T(x * y); });
    case BinaryOp::div:
      if constexpr (std::is_floating_point_v<T>) return map2<T, T>(out, a, b, [](T x, T y) { return x / y; });
      else
        return map2<T, T>(out, a, b, [](T x, T y) { return y == 0 ? T(0) : T(x / y); });  // ops::div rejects 0 first
    case BinaryOp::pow:
      return map2<T, T>(out, a, b,
                        [](T x, T y) { return dispatch::convert_element<T>(std::pow(double(x), double(y))); });
    case BinaryOp::maximum: return map2<T, T>(out, a, b, [](T x, T y) { return x > y || x != x ? x : y; });
    case BinaryOp::minimum: return map2<T, T>(out, a, b, [](T x, T y) { return x < y || x != x ? x : y; });
    case BinaryOp::relu_backward: return map2<T, T>(out, a, b, [](T g, T y) { return y > 0 ? g : T(0); });
    case BinaryOp::sigmoid_backward: return map2<T, T>(out, a, b, [](T g, T y) { return T(g * y * (1 - y)); });
    case BinaryOp::tanh_backward: return map2<T, T>(out, a, b, [](T g, T y) { return T(g * (1 - y * y)); });
    default: break;
  }
  throw Error(std::string(binary_name(op)) + ": unsupported");
}

template <class T>
void binary_compare(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::eq: return map2<bool, T>(out, a, b, [](T x, T y) { return x == y; });
    case BinaryOp::ne: return map2<bool, T>(out, a, b, [](T x, T y) { return x != y; });
    case BinaryOp::lt: return map2<bool, T>(out, a, b, [](T x, T y) { return x < y; });
    case BinaryOp::le: return map2<bool, T>(out, a, b, [](T x, T y) { return x <= y; });
    case BinaryOp::gt: return map2<bool, T>(out, a, b, [](T x, T y) { return x > y; });
    case BinaryOp::ge: return map2<bool, T>(out, a, b, [](T x, T y) { return x >= y; });
    case BinaryOp::logical_and: return map2<bool, T>(out, a, b, [](T x, T y) { return x != T(0) && y != T(0); });
    case BinaryOp::logical_or: return map2<bool, T>(out, a, b, [](T x, T y) { return x != T(0) || y != T(0); });
    default: break;
  }
  throw Error(std::string(binary_name(op)) + ": not a comparison");
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x, double a, double b) {
  dispatch::check_unary(op, x.dtype());
  Tensor out = Tensor::empty(x.shape(), dispatch::unary_result_dtype(op, x.dtype()), x.device());
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_typed<T>(op, out, x, dispatch::convert_element<T>(a), dispatch::convert_element<T>(b));
  });
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  DType common = promote(a.dtype(), b.dtype());
  Tensor ca = a.dtype() == common ? a : cast(a, common);
  Tensor cb = b.dtype() == common ? b : cast(b, common);
  Shape shape = a.shape() == b.shape() ? a.shape() : broadcast_shapes(a.shape(), b.shape(), binary_name(op));
  if (is_comparison(op)) {
    Tensor out = Tensor::empty(shape, kBool, a.device());
    dispatch_all(common, [&](auto tag) { binary_compare<typename decltype(tag)::type>(op, out, ca, cb); });
    return out;
  }
  Tensor out = Tensor::empty(shape, common, a.device());
  dispatch_numeric(common, binary_name(op),
                   [&](auto tag) { binary_arith<typename decltype(tag)::type>(op, out, ca, cb); });
  return out;
}

void binary_inplace(BinaryOp op, Tensor& a, const Tensor& b) {
  dispatch::check_inplace(op, a.shape(), b.shape());
  Tensor cb = b.dtype() == a.dtype() ? b : cast(b, a.dtype());
  dispatch_numeric(a.dtype(), binary_name(op),
                   [&](auto tag) { binary_arith<typename decltype(tag)::type>(op, a, a, cb); });
}

void add_scaled_inplace(Tensor& a, const Tensor& b, double alpha) {
  dispatch::check_inplace(BinaryOp::add, a.shape(), b.shape());
  Tensor cb = b.dtype() == a.dtype() ? b : cast(b, a.dtype());
  dispatch_numeric(a.dtype(), "add_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T s = static_cast<T>(alpha);
    map2<T, T>(a, a, cb, [s](T x, T y) { return T(x + s * y); });
  });
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  DType common = promote(a.dtype(), b.dtype());
  Tensor ca = a.dtype() == common ? a : cast(a, common);
  Tensor cb = b.dtype() == common ? b : cast(b, common);
  Tensor cc = cond.dtype() == kBool ? cond : cast(cond, kBool);
  Shape shape = broadcast_shapes(broadcast_shapes(cc.shape(), a.shape(), "where"), b.shape(), "where");
  Tensor out = Tensor::empty(shape, common, a.device());
  StridedLoop<4> loop{shape,
                      {broadcast_byte_strides(out, shape), broadcast_byte_strides(cc, shape),
                       broadcast_byte_strides(ca, shape), broadcast_byte_strides(cb, shape)},
                      {static_cast<char*>(out.raw_data()), static_cast<char*>(cc.raw_data()),
                       static_cast<char*>(ca.raw_data()), static_cast<char*>(cb.raw_data())}};
  dispatch_all(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    loop.run([&](std::array<char*, 4> p, std::array<int64_t, 4> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                     ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                     : *reinterpret_cast<const T*>(p[3] + i * s[3]);
    });
  });
  return out;
}

void copy_into(Tensor& dst, const Tensor& src) {
  dispatch::check_copy_shape(dst.shape(), src.shape());
  dispatch_storage(dst.dtype(), [&](auto out_tag) {  // bfloat16 too: casts to and from it are copies
    using O = typename decltype(out_tag)::type;
    dispatch_storage(src.dtype(), [&](auto in_tag) {
      using I = typename decltype(in_tag)::type;
      map1<O, I>(dst, src, [](I v) { return dispatch::convert_element<O>(v); });
    });
  });
}

Tensor contiguous_copy(const Tensor& x) { return dispatch::copy_as(x, x.dtype()); }

Tensor cast(const Tensor& x, DType dtype) {
  if (x.dtype() == kFloat32 && dtype == kBFloat16) return bf16_copy(x);  // vectorised (bf16_round.hpp)
  return dispatch::copy_as(x, dtype);
}

void fill(Tensor& t, double value) {
  dispatch_all(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = dispatch::convert_element<T>(value);
    StridedLoop<1> loop{t.shape(), {broadcast_byte_strides(t, t.shape())}, {static_cast<char*>(t.raw_data())}};
    loop.run([&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
      if (s[0] == sizeof(T)) {
        std::fill_n(reinterpret_cast<T*>(p[0]), n, v);
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

}  // namespace strata::kernels::cpu
