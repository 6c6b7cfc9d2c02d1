#include "strata/nn/layers/merge.hpp"

#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Stack::Stack(Options options, std::string name) : Layer("stack", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

void Stack::build_many(const std::vector<Shape>& shapes) {
  expect(!shapes.empty(), "takes a list of inputs, got none");
  n_inputs_ = shapes.size();
}

Tensor Stack::forward_many(const std::vector<Tensor>& xs) {
  std::string got;
  bool ok = xs.size() == n_inputs_;
  for (const Tensor& x : xs) {
    ok = ok && x.shape() == xs[0].shape();
    got += (got.empty() ? "" : ", ") + x.shape().str();
  }
  expect(ok, "expected " + std::to_string(n_inputs_) + " inputs of one shape, got " + std::to_string(xs.size()) + ": " +
                 got);
  const int64_t rank = xs[0].dim() + 1, axis = options_.axis;
  expect(axis >= -rank && axis < rank,
         "axis " + std::to_string(axis) + " is out of range for stacking inputs of shape " + xs[0].shape().str());
  return stack(xs, axis);
}

void Stack::build(const Shape&) { expect(false, "takes a list of inputs, got one tensor"); }
Tensor Stack::forward(const Tensor& x) {
  build(x.shape());
  return Tensor();
}

std::vector<Tensor> unstack(const Tensor& x, int64_t axis) {
  const int64_t rank = x.dim();
  STRATA_CHECK(rank >= 1 && axis >= -rank && axis < rank, "unstack: axis ", std::to_string(axis),
               " is out of range for a tensor of shape ", x.shape().str());
  if (axis < 0) axis += rank;
  std::vector<Tensor> out;
  for (int64_t i = 0; i < x.size(axis); ++i) out.push_back(select(x, axis, i));
  return out;
}

UnStack::UnStack(int64_t axis, std::string name) : Layer("unstack", std::move(name)), axis_(axis) {}

Tensor UnStack::forward(const Tensor&) {
  expect(false, "returns a list of tensors; call it directly (unstack(x)), not as a one-output layer");
  return Tensor();
}

STRATA_DEFINE_OPTIONS(StackOptions, STRATA_STACK_OPTIONS)
STRATA_LAYER("stack", Stack);

}  // namespace strata::nn
