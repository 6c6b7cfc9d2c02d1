// Bounds on the weights layers make (Layer::add_weight, a Lambda's weights from its config).
// Every weight's byte count is computed with overflow checks and must fit
// limits().max_tensor_bytes. While WeightBudgets are open on the thread (a model being built from
// a config read from outside), all the weights made meanwhile must also fit each of them, so a
// 1 KB file cannot make the loader allocate gigabytes before its weights are found missing.
#pragma once
#include <cstdint>
#include <string>

#include "strata/core/dtype.hpp"
#include "strata/core/shape.hpp"

namespace strata::nn::detail {

// The bytes of a tensor of this shape and dtype; throws naming `what`: strata::Error for a
// negative size, LimitError for a count that overflows 64 bits.
uint64_t tensor_bytes(const Shape& shape, DType dtype, const std::string& what);

// Checks a weight about to be made (`name` as files name it, "fc/W") against max_tensor_bytes;
// throws LimitError naming it, its shape and the limit.
void check_weight_size(const Shape& shape, DType dtype, const std::string& name);
// check_weight_size, then charges the weight to every open budget; throws LimitError naming it,
// its shape and the budget it exceeds.
void charge_weight(const Shape& shape, DType dtype, const std::string& name);
// After a weight charged as `charged` was made as `actual` (an initializer's dtype is known only
// once it has run): the open budgets get back the difference, or are charged the excess (throws
// as charge_weight does).
void recharge_weight(const Shape& shape, DType charged, DType actual, const std::string& name);

// The dtype Layer::add_weight charges the budgets for, before the initializer allocates:
// float32 (what initializers make) unless a WeightDType is open on the thread, as a Lambda opens
// one for each of its constants (bool masks, uint8 tables, int64 indices of an imported graph).
class WeightDType {
 public:
  explicit WeightDType(DType dtype);
  ~WeightDType();
  WeightDType(const WeightDType&) = delete;
  WeightDType& operator=(const WeightDType&) = delete;
  static DType current();

 private:
  DType previous_;
};

class WeightBudget {
 public:
  // `bytes` for all weights made until this is destroyed; `source` says where the bound comes
  // from, for the error ("the 1024 bytes of tensors in m.safetensors").
  WeightBudget(uint64_t bytes, std::string source);
  ~WeightBudget();
  WeightBudget(const WeightBudget&) = delete;
  WeightBudget& operator=(const WeightBudget&) = delete;

 private:
  friend void charge_weight(const Shape&, DType, const std::string&);
  friend void recharge_weight(const Shape&, DType, DType, const std::string&);
  WeightBudget* outer_;
  uint64_t total_, left_;
  std::string source_;
};

}  // namespace strata::nn::detail
