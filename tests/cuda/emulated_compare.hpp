// Running the same code on the CPU and on the emulated CUDA device (emulated_backend.hpp) and
// comparing what comes back: the error message, or each output's dtype, shape, layout and values,
// and where asked the gradients of the inputs. The test_emulated_*.cpp files check the kernel
// groups with it beyond the op conformance table (test_emulated_backend.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/emulated_backend.hpp"
#include "kernels/cuda/families.hpp"
#include "ops/conformance_runs.hpp"
#include "strata/strata.hpp"

// Expects the emulated device to run the CUDA backend's kernel for the dispatch `family`, not the
// CPU's (which install_emulated_cuda registers where the backend has none): otherwise comparing
// the family with the CPU would compare the CPU with itself.
#define STRATA_EXPECT_CUDA_KERNEL(family)                                                                    \
  EXPECT_EQ(::strata::dispatch::family.get(::strata::DeviceType::Custom), &::strata::kernels::cuda::family) \
      << #family;

namespace strata::testing {

using Tensors = std::vector<Tensor>;

// Whether a comparison also runs backward (from a weighted sum of the floating outputs) and
// compares the gradients of the floating inputs.
enum class Grads { no, yes };

// Relative tolerance (of expect_values_near) for values of `dtype`: exact for integers and bools.
inline double tolerance_for(DType dtype) {
  if (dtype == kFloat64) return 1e-12;
  if (dtype == kFloat32) return 1e-5;
  return 0;
}
constexpr double kToleranceOfDtype = -1;  // tolerance_for(each output's dtype)

// One output (or gradient) of a run, brought to the host.
struct RunOutput {
  DType dtype;
  Shape shape;
  bool contiguous;
  std::vector<double> values;
};
// What running some code on one device gave: the message of the Error it raised, or its outputs.
struct RunResult {
  std::string error;
  std::vector<RunOutput> outputs;  // the outputs, then the gradients of the inputs that have one
};

// `fn`'s result as a list of tensors, whether it returns nothing, one tensor or several.
template <class Fn>
Tensors outputs_of(const Fn& fn, const Tensors& in) {
  using Result = std::invoke_result_t<const Fn&, const Tensors&>;
  if constexpr (std::is_void_v<Result>) {
    fn(in);
    return {};
  } else if constexpr (std::is_same_v<Result, Tensor>) {
    return {fn(in)};
  } else {
    return fn(in);
  }
}

inline Tensors to_device(const Tensors& ts, Device device) {
  Tensors out;
  for (const Tensor& t : ts) out.push_back(t.to(device));
  return out;
}

inline RunOutput brought_back(const Tensor& t, Device device) {
  EXPECT_EQ(t.device(), device);
  return {t.dtype(), t.shape(), t.is_contiguous(), t.to_vector<double>()};
}

// Runs fn on copies of `inputs` on `device` (fn makes any views of them there, and may change them
// in place). With Grads::yes the floating inputs are leaves, and the gradients of
// sum(output * weights) over the floating outputs follow the outputs, the weights drawn from the
// same seed on every device.
template <class Fn>
RunResult run_on(Device device, const Tensors& inputs, const Fn& fn, Grads grads) {
  RunResult result;
  try {
    Tensors in;
    for (const Tensor& t : inputs) in.push_back(t.clone());
    in = grads == Grads::yes ? leaves_on(in, device) : to_device(in, device);
    const Tensors ys = outputs_of(fn, in);
    for (const Tensor& y : ys) result.outputs.push_back(brought_back(y, device));
    if (grads == Grads::no) return result;
    Generator weights(99);
    Tensor loss = scalar_tensor(0.0, {kFloat64, device});
    for (const Tensor& y : ys)
      if (y.requires_grad()) loss = loss + sum(y * uniform(y.shape(), 0.5, 1.5, {y.dtype(), device}, &weights));
    loss.backward();
    for (const Tensor& x : in)
      if (x.grad().defined()) result.outputs.push_back(brought_back(x.grad(), device));
  } catch (const Error& e) {
    result.error = e.what();
  }
  return result;
}

inline void expect_same_output(const RunOutput& got, const RunOutput& want, double tolerance) {
  EXPECT_EQ(got.dtype, want.dtype);
  EXPECT_EQ(got.shape, want.shape);
  EXPECT_EQ(got.contiguous, want.contiguous);
  ASSERT_EQ(got.values.size(), want.values.size());
  // expect_values_near measures distances, which infinities have not: they must be equal.
  std::vector<double> finite_got = got.values, finite_want = want.values;
  for (size_t i = 0; i < want.values.size(); ++i) {
    if (!std::isinf(want.values[i])) continue;
    EXPECT_EQ(got.values[i], want.values[i]) << "element " << i;
    finite_got[i] = finite_want[i] = 0;
  }
  expect_values_near(finite_got, finite_want, tolerance < 0 ? tolerance_for(want.dtype) : tolerance, "values");
}

// Runs fn on the emulated device and on the CPU and expects the same error message, or outputs
// (and gradients) of the same dtype, shape and layout, with values within `tolerance`. Returns
// what the CPU gave.
template <class Fn>
RunResult expect_same_as_cpu(const std::string& what, const Tensors& inputs, const Fn& fn, Grads grads = Grads::no,
                             double tolerance = kToleranceOfDtype) {
  SCOPED_TRACE(what);
  install_emulated_cuda();
  const RunResult got = run_on(kEmulatedCuda, inputs, fn, grads), want = run_on(kCPU, inputs, fn, grads);
  EXPECT_EQ(got.error, want.error);
  EXPECT_EQ(got.outputs.size(), want.outputs.size()) << "outputs and gradients";
  if (got.error != want.error || got.outputs.size() != want.outputs.size()) return want;
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    SCOPED_TRACE("outputs then gradients, #" + std::to_string(i));
    expect_same_output(got.outputs[i], want.outputs[i], tolerance);
  }
  return want;
}

// The same for code that must fail: expects an error on the CPU, and the same message on the device.
template <class Fn>
void expect_same_error(const std::string& what, const Tensors& inputs, const Fn& fn) {
  EXPECT_NE(expect_same_as_cpu(what, inputs, fn).error, "") << what << ": the CPU raised no error";
}

}  // namespace strata::testing
