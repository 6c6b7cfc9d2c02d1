#include "strata/nn/merge.hpp"

#include "strata/nn/functions.hpp"
#include "strata/nn/layer_config.hpp"

#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
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

Concat::Concat(int64_t concat_dim, std::string name) : Layer("concat", std::move(name)), concat_dim_(concat_dim) {}

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
  return concat(xs, concat_dim_);
}

// Called with one tensor (build throws first, so the layer stays unbuilt).
void Concat::build(const Shape&) { expect(false, "takes a list of inputs, got one tensor"); }
Tensor Concat::forward(const Tensor& x) {
  build(x.shape());
  return Tensor();
}

Elementwise::Elementwise(const std::string& combine, Activation act, std::string name)
    : Layer("elementwise", std::move(name)), combine_(combine), act_(std::move(act)) {
  if (combine == "add" || combine == "mean") {
    fn_ = [](const Tensor& a, const Tensor& b) { return a + b; };
    mean_ = combine == "mean";
  } else if (combine == "multiply") {
    fn_ = [](const Tensor& a, const Tensor& b) { return a * b; };
  } else if (combine == "maximum") {
    fn_ = [](const Tensor& a, const Tensor& b) { return maximum(a, b); };
  } else if (combine == "minimum") {
    fn_ = [](const Tensor& a, const Tensor& b) { return minimum(a, b); };
  } else {
    expect(false, "unknown combine '" + combine + "' (known: add, multiply, maximum, minimum, mean)");
  }
}

Elementwise::Elementwise(CombineFn combine, Activation act, std::string name)
    : Layer("elementwise", std::move(name)), fn_(std::move(combine)), act_(std::move(act)) {
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
  return act_(y);
}

void Elementwise::build(const Shape&) { expect(false, "takes a list of at least two inputs, got one tensor"); }
Tensor Elementwise::forward(const Tensor& x) {
  build(x.shape());
  return Tensor();
}

ElementwiseLambda::ElementwiseLambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name)
    : Layer("elementwiselambda", std::move(name)), fn_(std::move(fn)), initial_(std::move(weights)) {
  expect(static_cast<bool>(fn_), "function is empty");
}

void ElementwiseLambda::build_many(const std::vector<Shape>&) {
  for (auto& [n, t] : initial_) {
    Tensor init = clone(t.detach());
    weights_.push_back(add_weight(n, init.shape(), [init](const Shape&, Generator*) { return clone(init); }));
  }
}

Tensor ElementwiseLambda::forward_many(const std::vector<Tensor>& xs) { return fn_(xs, weights_); }

using nlohmann::json;


void Concat::get_config(json& c) const { c = {{"concat_dim", concat_dim_}}; }

STRATA_LAYER_CLASS("concat", [](const json& c, const std::string& name) {
  return std::make_shared<Concat>(c.at("concat_dim").get<int64_t>(), name);
});

void Elementwise::get_config(json& c) const {
  expect(!combine_.empty(), "its combine is a C++ function, which a saved model cannot hold; use a named combine "
                            "(add, multiply, maximum, minimum, mean) or an ElementwiseLambda of a registered function");
  c = {{"combine", combine_}, {"act", activation_name(act_, *this)}};
}

STRATA_LAYER_CLASS("elementwise", [](const json& c, const std::string& name) {
  return std::make_shared<Elementwise>(c.at("combine").get<std::string>(), Activation(c.at("act").get<std::string>()),
                                       name);
});

ElementwiseLambda::ElementwiseLambda(const std::string& function, std::vector<std::pair<std::string, Tensor>> weights,
                                     std::string name)
    : ElementwiseLambda(find_function(function), std::move(weights), std::move(name)) {
  function_ = function;
}

void ElementwiseLambda::get_config(json& c) const {
  c = {{"function", lambda_function_name(function_, *this)}, {"weights", lambda_weights_config(initial_)}};
}

STRATA_LAYER_CLASS("elementwiselambda", [](const json& c, const std::string& name) {
  return std::make_shared<ElementwiseLambda>(c.at("function").get<std::string>(), lambda_weights_from(c.at("weights")),
                                             name);
});

}  // namespace strata::nn
