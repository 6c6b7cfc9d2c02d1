// SumTree: non-negative priorities of `capacity` slots in a binary tree of partial sums, so that
// setting one and finding the slot where a prefix sum falls are O(log capacity) (prioritised
// experience replay, Schaul et al. 2016).
#pragma once
#include <cstdint>
#include <vector>

namespace strata::rl {

class SumTree {
 public:
  explicit SumTree(int64_t capacity);
  int64_t capacity() const { return capacity_; }
  void set(int64_t slot, double priority);  // priority finite and >= 0
  double get(int64_t slot) const;
  double total() const { return tree_[1]; }
  // The slot i with prefix(i) <= mass < prefix(i) + priority(i); mass in [0, total()).
  int64_t find(double mass) const;

 private:
  int64_t capacity_, leaves_;  // leaves_: capacity rounded up to a power of two
  std::vector<double> tree_;   // tree_[1] is the root; leaves at [leaves_, 2 leaves_)
};

}  // namespace strata::rl
