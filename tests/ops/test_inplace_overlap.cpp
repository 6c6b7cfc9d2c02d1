// In-place writes that PyTorch refuses, refused here too with a message naming the op: into an
// expanded (stride-0) view, and from a source that shares memory with the destination in part.
// The same view as source (a += a) and disjoint views of one storage are allowed, and do what
// element-wise arithmetic says.
#include <gtest/gtest.h>

#include <string>

#include "strata/strata.hpp"

namespace strata {
namespace {

void expect_refused(const std::function<void()>& write, const std::string& words) {
  try {
    write();
    ADD_FAILURE() << "no error; expected one saying " << words;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(InplaceOverlap, WritesIntoExpandedViewsAreRefused) {
  Tensor row = arange(3, {kFloat32}).reshape({1, 3});
  Tensor expanded = row.expand({4, 3});
  expect_refused([&] { add_(expanded, ones({4, 3})); }, "add_: the written-to tensor is an expanded view");
  expect_refused([&] { fill_(expanded, 2); }, "fill_: the written-to tensor is an expanded view");
  expect_refused([&] { copy_(expanded, zeros({4, 3})); }, "copy_: the written-to tensor is an expanded view");
  EXPECT_EQ(row.to_vector<float>(), (std::vector<float>{0, 1, 2}));  // nothing was written
  // A size-1 axis may have any stride.
  Tensor one = zeros({1, 3}).expand({1, 3});
  EXPECT_NO_THROW(fill_(one, 1));
}

TEST(InplaceOverlap, PartlySharedSourcesAreRefusedSameAndDisjointViewsAllowed) {
  Tensor a = arange(16, {kFloat32}).reshape({4, 4});
  Tensor t = a.transpose(0, 1);
  expect_refused([&] { add_(a, t); }, "add_: the source and the written-to tensor share memory in part");
  Tensor head = a.reshape({16}).narrow(0, 0, 10), tail = a.reshape({16}).narrow(0, 6, 10);
  expect_refused([&] { copy_(head, tail); }, "copy_: the source and the written-to tensor share memory in part");

  Tensor v = arange(8, {kFloat32});
  Tensor low = v.narrow(0, 0, 4), high = v.narrow(0, 4, 4);
  add_(low, high);  // disjoint halves of one storage
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{4, 6, 8, 10, 4, 5, 6, 7}));
  mul_(high, high);  // the very same view
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{4, 6, 8, 10, 16, 25, 36, 49}));
}

}  // namespace
}  // namespace strata
