// The functions imported ONNX activations and constant arithmetic run as (nn::Lambda layers of
// registered functions, so that an imported model saves and loads like any static model). Their
// parameters (LeakyRelu's alpha, an added constant) are the Lambda's weights.
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/softmax.hpp"

namespace strata::onnx::detail {

namespace {

double scalar(const std::vector<Tensor>& w, size_t i) { return w.at(i).item<double>(); }

struct FunctionsRegistration {
  FunctionsRegistration() {
    using Ws = const std::vector<Tensor>&;
    // The unary ops with an ONNX operator (their `onnx` column in core/unary_ops.hpp): onnx.relu,
    // onnx.sigmoid, onnx.erf, ... Those with parameters have functions of their own below.
    for (const UnaryFunction& u : unary_functions())
      if (*u.onnx && !u.defaults) nn::register_function(std::string("onnx.") + u.name, u.fn);
    nn::register_function("onnx.softmax", [](const Tensor& x) { return strata::softmax(x, -1); });
    nn::register_function("onnx.leaky_relu", [](const Tensor& x, Ws w) { return strata::leaky_relu(x, scalar(w, 0)); });
    nn::register_function("onnx.elu", [](const Tensor& x, Ws w) { return strata::elu(x, scalar(w, 0)); });
    nn::register_function("onnx.clip", [](const Tensor& x, Ws w) { return clamp(x, scalar(w, 0), scalar(w, 1)); });
    // max(0, min(1, alpha x + beta))
    nn::register_function("onnx.hard_sigmoid",
                          [](const Tensor& x, Ws w) { return clamp(x * scalar(w, 0) + scalar(w, 1), 0.0, 1.0); });
    nn::register_function("onnx.matmul", [](const std::vector<Tensor>& xs, Ws) { return matmul(xs.at(0), xs.at(1)); });
    // MatMul with a constant operand on one side (the weight) that a Dense layer cannot be.
    nn::register_function("onnx.matmul_left", [](const Tensor& x, Ws w) { return matmul(w.at(0), x); });
    nn::register_function("onnx.matmul_right", [](const Tensor& x, Ws w) { return matmul(x, w.at(0)); });
    // onnx.add, onnx.sub, ... (onnx_import_math.cpp); onnx.greater, onnx.where, ... (onnx_import_logic.cpp).
    // One function per axis ("onnx.squeeze.1"): an axis decides the output's shape, which must be
    // right while a model is declared, before weights get their values.
    for (int64_t axis = 0; axis < 8; ++axis) {
      nn::register_function("onnx.squeeze." + std::to_string(axis), [axis](const Tensor& x) { return squeeze(x, axis); });
      nn::register_function("onnx.unsqueeze." + std::to_string(axis),
                            [axis](const Tensor& x) { return unsqueeze(x, axis); });
      // Slice: weights start, step and one whose length is the slice's (its shape, which a saved
      // model's config keeps; values are zeros until assigned: a step of 0 is then taken as 1).
      nn::register_function("onnx.slice." + std::to_string(axis), [axis](const Tensor& x, Ws w) {
        const double start = scalar(w, 0), step = scalar(w, 1) == 0 ? 1 : scalar(w, 1);
        const int64_t length = w.at(2).numel(), n = axis < x.dim() ? x.size(axis) : 0;
        STRATA_CHECK(start >= 0 && start < n && step >= 1 && step <= n && length >= 1 &&
                         start + static_cast<double>(length - 1) * step < n,
                     "onnx.slice.", axis, ": start ", start, ", step ", step, " and length ", length, " do not fit ",
                     x.shape().str());
        const auto first = static_cast<int64_t>(start), stride = static_cast<int64_t>(step);
        return slice(x, axis, first, first + (length - 1) * stride + 1, stride);
      });
      // GatherElements (onnx_import_select.cpp): indices as the second input or the weight,
      // negative ones counted from the end; Strata's gather checks their range.
      nn::register_function("onnx.gather_elements." + std::to_string(axis), [axis](const std::vector<Tensor>& xs, Ws w) {
        const Tensor& x = xs.at(0);
        const Tensor& i = xs.size() > 1 ? xs[1] : w.at(0);
        STRATA_CHECK(axis < x.dim(), "onnx.gather_elements.", axis, ": no axis ", axis, " in ", x.shape().str());
        return gather(x, axis, where(lt(i, zeros_like(i)), i + full_like(i, static_cast<double>(x.size(axis))), i));
      });
      // Gather of one index (the weight, whose value the shape does not depend on; a saved
      // model's weight is outside input too: checked before it becomes an integer)
      nn::register_function("onnx.select." + std::to_string(axis), [axis](const Tensor& x, Ws w) {
        const double i = scalar(w, 0);
        STRATA_CHECK(axis < x.dim() && i >= 0 && i < static_cast<double>(x.size(axis)), "onnx.select.", axis,
                     ": index ", i, " is out of range for ", x.shape().str());
        return select(x, axis, static_cast<int64_t>(i));
      });
    }
  }
};
const FunctionsRegistration functions_registration;

}  // namespace

}  // namespace strata::onnx::detail
