#include "weight_budget.hpp"

#include "strata/core/limits.hpp"

namespace strata::nn::detail {
namespace {

thread_local WeightBudget* innermost = nullptr;
thread_local DType weight_dtype = kFloat32;

}  // namespace

uint64_t tensor_bytes(const Shape& shape, DType dtype, const std::string& what) {
  uint64_t bytes = itemsize(dtype);
  for (int i = 0; i < shape.size(); ++i) {
    STRATA_CHECK(shape[i] >= 0, what, ": a negative size in ", shape.str());
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(shape[i]), &bytes))
      throw LimitError(what + ": more than 2^64 bytes, above the limit max_tensor_bytes = " +
                       std::to_string(limits().max_tensor_bytes));
  }
  return bytes;
}

void check_weight_size(const Shape& shape, DType dtype, const std::string& name) {
  const std::string what = "weight " + name + " of shape " + shape.str();
  check_limit(what, "tensor bytes", tensor_bytes(shape, dtype, what), "max_tensor_bytes", limits().max_tensor_bytes);
}

void charge_weight(const Shape& shape, DType dtype, const std::string& name) {
  check_weight_size(shape, dtype, name);
  const uint64_t bytes = tensor_bytes(shape, dtype, name);
  for (WeightBudget* b = innermost; b != nullptr; b = b->outer_) {
    if (bytes > b->left_)
      throw LimitError("weight " + name + " of shape " + shape.str() + " (" + std::to_string(bytes) + " bytes), with the " +
                       std::to_string(b->total_ - b->left_) + " bytes of weights made before it, needs more than " +
                       b->source_);
    b->left_ -= bytes;
  }
}

void recharge_weight(const Shape& shape, DType charged, DType actual, const std::string& name) {
  if (itemsize(actual) == itemsize(charged)) return;
  // Give back what was charged, then charge what was made: one check, one error message.
  const uint64_t charged_bytes = tensor_bytes(shape, charged, name);
  for (WeightBudget* b = innermost; b != nullptr; b = b->outer_) b->left_ += charged_bytes;
  charge_weight(shape, actual, name);
}

WeightDType::WeightDType(DType dtype) : previous_(weight_dtype) { weight_dtype = dtype; }
WeightDType::~WeightDType() { weight_dtype = previous_; }
DType WeightDType::current() { return weight_dtype; }

WeightBudget::WeightBudget(uint64_t bytes, std::string source)
    : outer_(innermost), total_(bytes), left_(bytes), source_(std::move(source)) {
  innermost = this;
}

WeightBudget::~WeightBudget() { innermost = outer_; }

}  // namespace strata::nn::detail
