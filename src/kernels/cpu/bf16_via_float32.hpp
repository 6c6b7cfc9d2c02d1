// bfloat16 tensors on the CPU backend: a kernel family without a bf16 path of its own runs on
// float32 copies of its bf16 arguments (and a bf16 dtype argument reads as float32), and its
// tensor results come back as bf16. PyTorch's CPU kernels compute bf16 in float32 the same way;
// bf16 is a storage format here, the speed comes from oneDNN's bf16 matmul and convolution under
// autocast (strata/core/autocast.hpp; matmul.cpp, conv_kernels.cpp). In-place arguments are
// written back, rounded.
// Families whose results are structs (norm statistics, recurrent cell outputs) are not wrapped:
// their kernels refuse bf16 with a clear error (dispatch_floating).
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/elementwise.hpp"

namespace strata::kernels::cpu::bf16_via_float32 {

inline bool is_bf16(const Tensor& t) { return t.defined() && t.dtype() == kBFloat16; }

// What the arguments held: results are narrowed to bf16 when a bf16 tensor came in and no wider
// float one did (bf16 with float32 promotes to float32, as in binary ops).
struct Seen {
  bool bf16 = false;
  bool wider = false;
};
inline Tensor widened(const Tensor& t, Seen& seen) {
  if (t.defined() && (t.dtype() == kFloat32 || t.dtype() == kFloat64)) seen.wider = true;
  if (!is_bf16(t)) return t;
  seen.bf16 = true;
  return cast(t, kFloat32);
}

// One argument of a kernel, held in the form the float32 kernel takes; finish() writes an
// in-place argument back.
template <class A>
struct Arg {  // anything that is not a tensor passes through
  A value;
  Arg(A v, Seen&) : value(std::forward<A>(v)) {}
  A get() { return std::forward<A>(value); }
  void finish() {}
};
template <>
struct Arg<DType> {
  DType value;
  Arg(DType d, Seen& seen) : value(d == kBFloat16 ? (seen.bf16 = true, kFloat32) : d) {}
  DType get() { return value; }
  void finish() {}
};
template <>
struct Arg<const Tensor&> {
  Tensor held;
  Arg(const Tensor& t, Seen& seen) : held(widened(t, seen)) {}
  const Tensor& get() { return held; }
  void finish() {}
};
template <>
struct Arg<Tensor&> {
  Tensor& original;
  Tensor held;
  Arg(Tensor& t, Seen& seen) : original(t), held(widened(t, seen)) {}
  Tensor& get() { return is_bf16(original) ? held : original; }
  void finish() {
    if (is_bf16(original)) copy_into(original, held);
  }
};
template <>
struct Arg<Tensor*> {
  Tensor* original;
  Tensor held;
  Arg(Tensor* t, Seen& seen) : original(t), held(t ? widened(*t, seen) : Tensor()) {}
  Tensor* get() { return original && is_bf16(*original) ? &held : original; }
  void finish() {
    if (original && is_bf16(*original)) copy_into(*original, held);
  }
};

inline void narrow(Tensor& t) {
  if (t.defined() && t.dtype() == kFloat32) t = cast(t, kBFloat16);
}
inline void narrow(std::pair<Tensor, Tensor>& p) { narrow(p.first), narrow(p.second); }
template <class R>
void narrow(R&) {}  // non-float results (indices, positions)

template <class R>
inline constexpr bool kNarrowable =
    std::is_void_v<R> || std::is_same_v<R, Tensor> || std::is_same_v<R, std::pair<Tensor, Tensor>> ||
    std::is_same_v<R, std::vector<int64_t>>;

inline bool names_bf16(const Tensor& t) { return is_bf16(t); }
inline bool names_bf16(const Tensor* t) { return t && is_bf16(*t); }
inline bool names_bf16(DType d) { return d == kBFloat16; }
template <class T>
bool names_bf16(const T&) {
  return false;
}

template <auto Fn, class Sig>
struct Wrap;
template <auto Fn, class R, class... Args>
struct Wrap<Fn, R (*)(Args...)> {
  static R run(Args... args) {
    if (!(names_bf16(args) || ...)) return Fn(std::forward<Args>(args)...);  // the common case: no copies
    Seen seen;
    std::tuple<Arg<Args>...> held{Arg<Args>(std::forward<Args>(args), seen)...};
    if constexpr (std::is_void_v<R>) {
      std::apply([](auto&... a) { Fn(a.get()...); }, held);
      std::apply([](auto&... a) { (a.finish(), ...); }, held);
    } else {
      R r = std::apply([](auto&... a) { return Fn(a.get()...); }, held);
      std::apply([](auto&... a) { (a.finish(), ...); }, held);
      if (!seen.wider) narrow(r);
      return r;
    }
  }
};

template <class F>
struct ResultOf;
template <class R, class... Args>
struct ResultOf<R (*)(Args...)> {
  using type = R;
};

// Kernels that convert bf16 themselves (copies and casts): never wrapped.
template <auto Fn>
inline constexpr bool kNative = false;
template <>
inline constexpr bool kNative<&cpu::copy_into> = true;
template <>
inline constexpr bool kNative<&cpu::contiguous_copy> = true;
template <>
inline constexpr bool kNative<&cpu::cast> = true;

// The kernel to register for `Fn`: wrapped where its results can be narrowed back to bf16.
template <auto Fn>
constexpr auto kernel() {
  using F = decltype(Fn);
  if constexpr (!kNative<Fn> && kNarrowable<typename ResultOf<F>::type>)
    return &Wrap<Fn, F>::run;
  else
    return Fn;
}

}  // namespace strata::kernels::cpu::bf16_via_float32
