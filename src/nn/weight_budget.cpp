#include "weight_budget.hpp"

#include "strata/core/limits.hpp"

namespace strata::nn::detail {
namespace {

thread_local WeightBudget* innermost = nullptr;

}  // namespace

uint64_t tensor_bytes(const Shape& shape, DType dtype, const std::string& what) {
  uint64_t bytes = itemsize(dtype);
  for (int i = 0; i < shape.size(); ++i) {
    STRATA_CHECK(shape[i] >= 0, what, ": shape ", shape.str(), " has a negative size");
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(shape[i]), &bytes))
      throw LimitError(what + ": shape " + shape.str() + " has more than 2^64 bytes, above the limit max_tensor_bytes = " +
                       std::to_string(limits().max_tensor_bytes));
  }
  return bytes;
}

void charge_weight(const Shape& shape, DType dtype, const std::string& what) {
  const uint64_t bytes = tensor_bytes(shape, dtype, what);
  check_limit(what + " " + shape.str(), "tensor bytes", bytes, "max_tensor_bytes", limits().max_tensor_bytes);
  for (WeightBudget* b = innermost; b != nullptr; b = b->outer_) {
    if (bytes > b->left_)
      throw LimitError(what + " " + shape.str() + ": its " + std::to_string(bytes) + " bytes, with the " +
                       std::to_string(b->total_ - b->left_) + " made before it, exceed " + b->source_);
    b->left_ -= bytes;
  }
}

WeightBudget::WeightBudget(uint64_t bytes, std::string source)
    : outer_(innermost), total_(bytes), left_(bytes), source_(std::move(source)) {
  innermost = this;
}

WeightBudget::~WeightBudget() { innermost = outer_; }

}  // namespace strata::nn::detail
