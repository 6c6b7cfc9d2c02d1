#include "strata/rl/sum_tree.hpp"

#include <cmath>
#include <string>

#include "strata/core/error.hpp"

namespace strata::rl {

SumTree::SumTree(int64_t capacity) : capacity_(capacity), leaves_(1) {
  STRATA_CHECK(capacity > 0 && capacity <= (int64_t{1} << 40), "SumTree: capacity must be in [1, 2^40], got ", capacity);
  while (leaves_ < capacity) leaves_ *= 2;
  tree_.assign(2 * leaves_, 0.0);
}

void SumTree::set(int64_t slot, double priority) {
  STRATA_CHECK(slot >= 0 && slot < capacity_, "SumTree::set: slot ", slot, " is outside [0, ", capacity_, ")");
  STRATA_CHECK(std::isfinite(priority) && priority >= 0, "SumTree::set: priority must be finite and >= 0, got ",
               std::to_string(priority));
  int64_t node = leaves_ + slot;
  tree_[node] = priority;
  // Recompute the sums up the path (not add a difference): rounding errors cannot pile up.
  for (node /= 2; node >= 1; node /= 2) tree_[node] = tree_[2 * node] + tree_[2 * node + 1];
}

double SumTree::get(int64_t slot) const {
  STRATA_CHECK(slot >= 0 && slot < capacity_, "SumTree::get: slot ", slot, " is outside [0, ", capacity_, ")");
  return tree_[leaves_ + slot];
}

int64_t SumTree::find(double mass) const {
  STRATA_CHECK(total() > 0, "SumTree::find: every priority is 0");
  STRATA_CHECK(mass >= 0 && mass < total(), "SumTree::find: mass must be in [0, ", std::to_string(total()), "), got ",
               std::to_string(mass));
  int64_t node = 1;
  while (node < leaves_) {
    const double left = tree_[2 * node];
    // Never descend into an empty subtree (rounding can leave mass just above left's sum).
    if (mass < left || tree_[2 * node + 1] == 0) {
      node = 2 * node;
    } else {
      mass -= left;
      node = 2 * node + 1;
    }
  }
  return node - leaves_;
}

}  // namespace strata::rl
