// Issue 13: Layer::call kept raw pointers to the layers a forward pass called. A temporary layer
// called inside forward, or a layer moved elsewhere, left a dangling child that train(),
// all_weights() and summary() read later. Children now unlink themselves when destroyed and
// re-point their parents when moved.
#include <gtest/gtest.h>

#include <utility>

#include "strata/core/factory.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/layers/dense.hpp"

namespace strata::reliability {
namespace {

// Calls a fresh Dense on every forward: its weights live only as long as the call.
struct CallsATemporary : nn::Module {
  Tensor forward(const Tensor& x) override { return nn::Dense(3)(x); }
};

struct Net : nn::Module {
  nn::Dense hidden{4}, out{2};
  Tensor forward(const Tensor& x) override { return out(hidden(x)); }
};

TEST(LayerChildren, ATemporaryCalledInForwardLeavesNoChildBehind) {
  CallsATemporary m;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m(ones({2, 5})).shape(), Shape({2, 3}));
  EXPECT_TRUE(m.children().empty());
  EXPECT_TRUE(m.all_weights().empty());
  EXPECT_EQ(m.count_params(), 0);
  m.eval();  // walks the children: none left to read
  EXPECT_NE(m.summary().find("Total params: 0"), std::string::npos);
}

TEST(LayerChildren, AMovedModuleOwnsItsChildrenAndTheirWeights) {
  Net* source = new Net;
  (*source)(ones({1, 8}));
  const std::vector<Tensor> before = source->all_weights();
  ASSERT_EQ(before.size(), 4u);
  Net moved(std::move(*source));
  delete source;  // its members are gone: the moved module must not point at them
  ASSERT_EQ(moved.children().size(), 2u);
  EXPECT_EQ(moved.children()[0], &moved.hidden);
  EXPECT_EQ(moved.children()[1], &moved.out);
  const std::vector<Tensor> after = moved.all_weights();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_TRUE(after[i].is_same(before[i])) << i;
  moved.eval();
  EXPECT_FALSE(moved.hidden.training());
  EXPECT_EQ(moved(ones({1, 8})).shape(), Shape({1, 2}));
  EXPECT_EQ(moved.children().size(), 2u) << "calling again adds no stale entries";
}

TEST(LayerChildren, AChildMovedOutOfItsParentIsFollowed) {
  struct Holder : nn::Module {
    nn::Dense* inner = nullptr;
    Tensor forward(const Tensor& x) override { return (*inner)(x); }
  };
  auto first = std::make_unique<nn::Dense>(3);
  Holder h;
  h.inner = first.get();
  h(ones({1, 2}));
  ASSERT_EQ(h.all_weights().size(), 2u);
  nn::Dense second(std::move(*first));
  first.reset();
  ASSERT_EQ(h.children().size(), 1u);
  EXPECT_EQ(h.children()[0], &second);
  EXPECT_EQ(h.all_weights().size(), 2u);
  EXPECT_TRUE(h.all_weights()[0].is_same(second.all_weights()[0]));
}

TEST(LayerChildren, ADestroyedParentLeavesItsChildrenUsable) {
  nn::Dense shared(2);
  {
    struct Uses : nn::Module {
      nn::Dense& d;
      explicit Uses(nn::Dense& layer) : d(layer) {}
      Tensor forward(const Tensor& x) override { return d(x); }
    } user(shared);
    user(ones({1, 3}));
  }
  // The parent is gone; the child's own links must not point at it.
  EXPECT_EQ(shared(ones({1, 3})).shape(), Shape({1, 2}));
  nn::Dense moved(std::move(shared));
  EXPECT_EQ(moved.all_weights().size(), 2u);
}

}  // namespace
}  // namespace strata::reliability
