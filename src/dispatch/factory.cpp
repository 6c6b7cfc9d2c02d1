// The factories of strata/core/factory.hpp. They live a layer above core because constants are
// filled on their device by the `fill` kernel family; values computed one by one (ranges,
// random draws, C++ vectors) are made on the host and copied to the device.
#include "strata/core/factory.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "strata/core/device_copy.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata {

Tensor full(const Shape& shape, double value, TensorOptions options) {
  Tensor t = Tensor::empty(shape, options.dtype, options.device);
  dispatch::fill(t, value);
  return t;
}
Tensor zeros(const Shape& shape, TensorOptions options) { return full(shape, 0, options); }
Tensor ones(const Shape& shape, TensorOptions options) { return full(shape, 1, options); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.options()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.options()); }
Tensor full_like(const Tensor& t, double value) { return full(t.shape(), value, t.options()); }
Tensor empty_like(const Tensor& t) { return Tensor::empty(t.shape(), t.dtype(), t.device()); }
Tensor scalar_tensor(double value, TensorOptions options) { return full(Shape{}, value, options); }

// A tensor on the device of `options` holding f(i) at every flat index i, computed on the host.
template <class F>
static Tensor generate(const Shape& shape, TensorOptions options, F f) {
  Tensor t = Tensor::empty(shape, options.dtype);
  dispatch_storage(options.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(f(i));
  });
  return options.device == kCPU ? t : copy_contiguous_to(t, options.device);
}

Tensor arange(double start, double end, double step, TensorOptions options) {
  STRATA_CHECK(step != 0, "arange: step must be non-zero");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((end - start) / step)));
  return generate({n}, options, [&](int64_t i) { return start + i * step; });
}
Tensor arange(int64_t end, TensorOptions options) { return arange(0, static_cast<double>(end), 1, options); }

Tensor linspace(double start, double end, int64_t steps, TensorOptions options) {
  STRATA_CHECK(steps >= 0, "linspace: steps must be non-negative, got ", steps);
  double step = steps > 1 ? (end - start) / (steps - 1) : 0;
  return generate({steps}, options, [&](int64_t i) { return i == steps - 1 ? end : start + i * step; });
}

Tensor eye(int64_t n, int64_t m, TensorOptions options) {
  if (m < 0) m = n;
  return generate({n, m}, options, [&](int64_t i) { return i / m == i % m ? 1.0 : 0.0; });
}

template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, Device device) {
  STRATA_CHECK(static_cast<int64_t>(values.size()) == shape.numel(), "from_vector: ", values.size(),
               " values do not fill shape ", shape.str());
  return generate(shape, {dtype_of<T>::value, device}, [&](int64_t i) { return values[i]; });
}
template Tensor from_vector(const std::vector<float>&, const Shape&, Device);
template Tensor from_vector(const std::vector<double>&, const Shape&, Device);
template Tensor from_vector(const std::vector<int64_t>&, const Shape&, Device);
template Tensor from_vector(const std::vector<int32_t>&, const Shape&, Device);
template Tensor from_vector(const std::vector<uint8_t>&, const Shape&, Device);
template Tensor from_vector(const std::vector<bool>&, const Shape&, Device);

template <class T>
static Tensor from_list(std::initializer_list<T> values, const Shape& shape) {
  std::vector<T> v(values);
  return from_vector(v, shape.empty() ? Shape{static_cast<int64_t>(v.size())} : shape);
}
Tensor tensor(std::initializer_list<float> v, const Shape& s) { return from_list(v, s); }
Tensor tensor(std::initializer_list<double> v, const Shape& s) { return from_list(v, s); }
Tensor tensor(std::initializer_list<int64_t> v, const Shape& s) { return from_list(v, s); }
Tensor tensor(std::initializer_list<int> v, const Shape& s) {
  std::vector<int64_t> w(v.begin(), v.end());
  return from_vector(w, s.empty() ? Shape{static_cast<int64_t>(w.size())} : s);
}

Generator& default_generator() {
  static Generator g;
  return g;
}
void manual_seed(uint64_t seed) { default_generator().seed(seed); }

template <class Dist>
static Tensor sample(const Shape& shape, TensorOptions options, Generator* gen, Dist dist) {
  auto& eng = (gen ? *gen : default_generator()).engine();
  return generate(shape, options, [&](int64_t) { return dist(eng); });
}

Tensor uniform(const Shape& shape, double low, double high, TensorOptions options, Generator* gen) {
  STRATA_CHECK(is_floating(options.dtype), "uniform: needs a float dtype, got ", dtype_name(options.dtype));
  return sample(shape, options, gen, std::uniform_real_distribution<double>(low, high));
}
Tensor rand(const Shape& shape, TensorOptions options, Generator* gen) { return uniform(shape, 0, 1, options, gen); }
Tensor normal(const Shape& shape, double mean, double stddev, TensorOptions options, Generator* gen) {
  STRATA_CHECK(is_floating(options.dtype), "normal: needs a float dtype, got ", dtype_name(options.dtype));
  STRATA_CHECK(stddev >= 0, "normal: stddev must be >= 0, got ", stddev);
  return sample(shape, options, gen, std::normal_distribution<double>(mean, stddev));
}
Tensor randn(const Shape& shape, TensorOptions options, Generator* gen) { return normal(shape, 0, 1, options, gen); }
Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions options, Generator* gen) {
  STRATA_CHECK(low < high, "randint: empty range [", low, ", ", high, ")");
  return sample(shape, options, gen, std::uniform_int_distribution<int64_t>(low, high - 1));
}
Tensor bernoulli(const Shape& shape, double p, TensorOptions options, Generator* gen) {
  STRATA_CHECK(p >= 0 && p <= 1, "bernoulli: p must be in [0, 1], got ", p);
  return sample(shape, options, gen, std::bernoulli_distribution(p));
}
Tensor randperm(int64_t n, Generator* gen) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  auto& eng = (gen ? *gen : default_generator()).engine();
  for (int64_t i = n - 1; i > 0; --i) std::swap(v[i], v[std::uniform_int_distribution<int64_t>(0, i)(eng)]);
  return from_vector(v);
}

}  // namespace strata
