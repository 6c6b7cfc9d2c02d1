// Creating tensors: constants, ranges, from C++ values, and random ones from a seedable generator.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

// Each factory takes TensorOptions: a dtype, a device or both ({kFloat64, device}); *_like
// keep the dtype and device of their argument.
Tensor zeros(const Shape& shape, TensorOptions options = {});
Tensor ones(const Shape& shape, TensorOptions options = {});
Tensor full(const Shape& shape, double value, TensorOptions options = {});
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, double value);
Tensor empty_like(const Tensor& t);
Tensor scalar_tensor(double value, TensorOptions options = {});  // a 0-dimensional tensor
// [start, end) in steps of `step`; int64 unless a dtype is given.
Tensor arange(double start, double end, double step = 1, TensorOptions options = kInt64);
Tensor arange(int64_t end, TensorOptions options = kInt64);
Tensor linspace(double start, double end, int64_t steps, TensorOptions options = {});
Tensor eye(int64_t n, int64_t m = -1, TensorOptions options = {});

// From C++ values; the shape defaults to 1-D. The dtype follows T (float -> float32, ...).
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, Device device = kCPU);
template <class T>
Tensor from_vector(const std::vector<T>& values) {
  return from_vector(values, Shape{static_cast<int64_t>(values.size())});
}
Tensor tensor(std::initializer_list<float> values, const Shape& shape = {});
Tensor tensor(std::initializer_list<double> values, const Shape& shape = {});
Tensor tensor(std::initializer_list<int64_t> values, const Shape& shape = {});
Tensor tensor(std::initializer_list<int> values, const Shape& shape = {});

// A seedable random source. The global one (default_generator) is reseeded by manual_seed.
class Generator {
 public:
  explicit Generator(uint64_t seed = 5489u) : engine_(seed) {}
  void seed(uint64_t s) { engine_.seed(s); }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};
Generator& default_generator();
void manual_seed(uint64_t seed);

// Random tensors: the values are drawn on the host from the generator, so a seed gives the same
// values on every device.
Tensor rand(const Shape& shape, TensorOptions options = {}, Generator* gen = nullptr);   // U[0, 1)
Tensor randn(const Shape& shape, TensorOptions options = {}, Generator* gen = nullptr);  // N(0, 1)
Tensor uniform(const Shape& shape, double low, double high, TensorOptions options = {}, Generator* gen = nullptr);
Tensor normal(const Shape& shape, double mean, double stddev, TensorOptions options = {}, Generator* gen = nullptr);
Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions options = kInt64,
               Generator* gen = nullptr);
Tensor bernoulli(const Shape& shape, double p, TensorOptions options = {}, Generator* gen = nullptr);
Tensor randperm(int64_t n, Generator* gen = nullptr);

}  // namespace strata
