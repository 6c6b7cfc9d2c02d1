#include "strata/nn/layers/merge.hpp"

#include "strata/nn/functions.hpp"
#include "strata/nn/option_table.hpp"

#include "nn/weight_budget.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

// ElementwiseLambda shares Lambda's options, whose table nn/lambda.cpp defines.
template <>
const OptionTable& option_table<LambdaOptions>();

namespace {

Shape without_batch(const Shape& s) { return s.size() == 0 ? s : Shape(s.begin() + 1, s.end()); }

// "[N, 4, 8]": a shape after its batch axis, as expected at every call.
std::string batched_str(const Shape& rest) {
  std::string out = "[N";
  for (int64_t d : rest) out += ", " + std::to_string(d);
  return out + "]";
}

std::string shapes_str(const std::vector<Tensor>& xs) {
  std::string out;
  for (const Tensor& x : xs) out += (out.empty() ? "" : ", ") + x.shape().str();
  return out;
}

}  // namespace

Concat::Concat(Options options, std::string name) : Layer("concat", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

void Concat::build_many(const std::vector<Shape>& shapes) {
  expect(!shapes.empty(), "takes a list of inputs, got none");
  n_inputs_ = shapes.size();
  rank_ = shapes[0].size();
}

Tensor Concat::forward_many(const std::vector<Tensor>& xs) {
  bool ok = xs.size() == n_inputs_;
  for (const Tensor& x : xs) ok = ok && x.dim() == rank_;
  expect(ok, "expected " + std::to_string(n_inputs_) + " inputs of rank " + std::to_string(rank_) + ", got " +
                 std::to_string(xs.size()) + ": " + shapes_str(xs));
  return concat(xs, options_.concat_dim);
}

// Called with one tensor (build throws first, so the layer stays unbuilt).
void Concat::build(const Shape&) { expect(false, "takes a list of inputs, got one tensor"); }
Tensor Concat::forward(const Tensor& x) {
  build(x.shape());
  return Tensor();
}

Elementwise::Elementwise(Options options, std::string name)
    : Layer("elementwise", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);  // a known combine
  const std::string& combine = options_.combine.name;
  if (combine == "add" || combine == "mean") {
    fn_ = [](const Tensor& a, const Tensor& b) { return a + b; };
    mean_ = combine == "mean";
  } else if (combine == "multiply") {
    fn_ = [](const Tensor& a, const Tensor& b) { return a * b; };
  } else if (combine == "maximum") {
    fn_ = [](const Tensor& a, const Tensor& b) { return maximum(a, b); };
  } else {
    fn_ = [](const Tensor& a, const Tensor& b) { return minimum(a, b); };
  }
}

// Not checked against the options' rules: a function has no name to check (nor to save).
Elementwise::Elementwise(CombineFn combine, Activation act, std::string name)
    : Layer("elementwise", std::move(name)),
      fn_(std::move(combine)),
      options_{.combine = CombineName::code(), .act = std::move(act)} {
  expect(static_cast<bool>(fn_), "combine function is empty");
}

void Elementwise::build_many(const std::vector<Shape>& shapes) {
  expect(shapes.size() >= 2, "takes a list of at least two inputs, got " + std::to_string(shapes.size()));
  for (const Shape& s : shapes) shapes_.push_back(without_batch(s));
}

Tensor Elementwise::forward_many(const std::vector<Tensor>& xs) {
  bool ok = xs.size() == shapes_.size();
  for (size_t i = 0; ok && i < xs.size(); ++i) ok = xs[i].dim() >= 1 && without_batch(xs[i].shape()) == shapes_[i];
  if (!ok) {
    std::string built;
    for (const Shape& s : shapes_) built += (built.empty() ? "" : ", ") + batched_str(s);
    expect(false, "expected inputs " + built + ", got " + shapes_str(xs));
  }
  Tensor y = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) y = fn_(y, xs[i]);
  if (mean_) y = y / static_cast<double>(xs.size());
  return options_.act(y);
}

void Elementwise::build(const Shape&) { expect(false, "takes a list of at least two inputs, got one tensor"); }
Tensor Elementwise::forward(const Tensor& x) {
  build(x.shape());
  return Tensor();
}

ElementwiseLambda::ElementwiseLambda(Options options, std::string name)
    : Layer("elementwiselambda", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  expect(!options_.function.is_code, "has no function: give a registered function's name or a C++ function");
  fn_ = find_function(options_.function.name);
}

ElementwiseLambda::ElementwiseLambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name)
    : Layer("elementwiselambda", std::move(name)),
      fn_(std::move(fn)),
      options_{.function = FunctionName::code(), .weights = std::move(weights)} {
  check_options(options_, *this);
  expect(static_cast<bool>(fn_), "function is empty");
}

void ElementwiseLambda::build_many(const std::vector<Shape>&) {
  for (auto& [n, t] : options_.weights) {
    Tensor init = clone(t.detach());
    const detail::WeightDType as_made(init.dtype());  // charged as what it is, not as float32
    // Integer and boolean weights (an imported ONNX graph's int64 constants) cannot train.
    weights_.push_back(add_weight(
        n, init.shape(), [init](const Shape&, Generator*) { return clone(init); }, is_floating(init.dtype())));
  }
}

Tensor ElementwiseLambda::forward_many(const std::vector<Tensor>& xs) { return fn_(xs, weights_); }

// A named combine; one made from a C++ function cannot be saved.
template <>
struct OptionCodec<CombineName> {
  static constexpr const char* type = "str";
  static constexpr bool integral = false;
  static nlohmann::json write(const CombineName& c) {
    STRATA_CHECK(!c.is_code,
                 "its combine is a C++ function, which a saved model cannot hold; use a named combine "
                 "(add, multiply, maximum, minimum, mean) or an ElementwiseLambda of a registered function");
    return c.name;
  }
  static CombineName read(const nlohmann::json& j) { return OptionCodec<std::string>::read(j); }
};

STRATA_DEFINE_OPTIONS(ConcatOptions, STRATA_CONCAT_OPTIONS)
STRATA_DEFINE_OPTIONS(ElementwiseOptions, STRATA_ELEMENTWISE_OPTIONS)
STRATA_LAYER("concat", Concat);
STRATA_LAYER("elementwise", Elementwise);
STRATA_LAYER("elementwiselambda", ElementwiseLambda);

}  // namespace strata::nn
