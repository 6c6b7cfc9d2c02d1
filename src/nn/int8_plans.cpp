// Int8Plans (int8_plans.hpp): the int8 layers' prepared ops by input shape.
#include "int8_plans.hpp"

namespace strata::nn::detail {

const ops::PreparedOp* Int8Plans::find(const Shape& shape) const {
  for (const ops::PreparedOp& op : plans_)
    if (op.input_shape() == shape) return &op;
  return nullptr;
}

const ops::PreparedOp& Int8Plans::add(ops::PreparedOp op) {
  if (plans_.size() >= kMaxPlans) plans_.clear();
  return plans_.emplace_back(std::move(op));
}

}  // namespace strata::nn::detail
