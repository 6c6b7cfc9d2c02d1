// nn::alias_weight and nn::UnparentedCalls (strata/nn/shared_weights.hpp): two copies of a layer
// built apart computing on one set of weights, and layers called without becoming children.
#include <gtest/gtest.h>

#include <strata/nn/shared_weights.hpp>
#include <strata/optim/sgd.hpp>
#include <strata/strata.hpp>

#include "support/expect_error.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

std::vector<float> shared_weight_values(const Tensor& t) { return t.contiguous().to_vector<float>(); }

}  // namespace

// The alias reads the master's values, its gradients land in the master's .grad() (as the master's
// own use would put them there), and a step on the master shows through the alias.
TEST(SharedWeights, AnAliasReadsAndTrainsTheMaster) {
  Generator gen(11);
  nn::Dense master_layer(3, {}, "master"), copy_layer(3, {}, "copy");
  const Tensor x = randn({4, 5}, {}, &gen), target = randn({4, 3}, {}, &gen);
  master_layer(x);
  copy_layer(x);
  const auto master = master_layer.named_weights(), copy = copy_layer.named_weights();
  ASSERT_EQ(master.size(), 2u);
  ASSERT_NE(shared_weight_values(master[0].second), shared_weight_values(copy[0].second));  // two initialisations
  std::vector<std::shared_ptr<void>> links;
  for (size_t i = 0; i < master.size(); ++i) links.push_back(nn::alias_weight(copy[i].second, master[i].second));
  EXPECT_EQ(shared_weight_values(copy_layer(x)), shared_weight_values(master_layer(x)));

  // the gradient through the copy is the one through the master
  mse_loss(master_layer(x), target).backward();
  std::vector<std::vector<float>> reference;
  for (auto& [name, w] : master) reference.push_back(shared_weight_values(w.grad()));
  for (auto [name, w] : master) w.zero_grad();
  mse_loss(copy_layer(x), target).backward();
  for (size_t i = 0; i < master.size(); ++i) {
    ASSERT_TRUE(master[i].second.grad().defined()) << master[i].first;
    EXPECT_EQ(shared_weight_values(master[i].second.grad()), reference[i]) << master[i].first;
    EXPECT_FALSE(copy[i].second.grad().defined()) << copy[i].first;
  }
  // a step on the master is seen through the copy
  optim::SGD sgd(master_layer.trainable_weights(), {.lr = 0.1});
  sgd.step();
  EXPECT_EQ(shared_weight_values(copy_layer(x)), shared_weight_values(master_layer(x)));
  EXPECT_EQ(shared_weight_values(copy[0].second), shared_weight_values(master[0].second));

  // a master that needs no gradient: nor does the alias
  nn::Dense frozen(3, {}, "frozen");
  frozen(x);
  Tensor frozen_w = frozen.all_weights()[0];
  frozen_w.requires_grad_(false);
  EXPECT_EQ(nn::alias_weight(copy[0].second, frozen_w), nullptr);
  EXPECT_FALSE(copy[0].second.requires_grad());

  expect_error([&] { nn::alias_weight(copy[0].second, master[1].second); },
               {"alias_weight", "[5, 3]", "[3]", "one shape and dtype"});
}

// Layers called under UnparentedCalls are no one's children; the stack comes back afterwards.
TEST(SharedWeights, UnparentedCallsAdoptNothing) {
  struct Outer : nn::Module {
    nn::Dense inside{2, {}, "inside"}, apart{2, {}, "apart"};
    Tensor forward(const Tensor& x) override {
      Tensor y;
      {
        nn::UnparentedCalls unparented;
        y = apart(x);
      }
      return add(inside(x), y);
    }
  } outer;
  outer(randn({3, 4}));
  ASSERT_EQ(outer.children().size(), 1u);
  EXPECT_EQ(outer.children()[0]->name(), "inside");
  EXPECT_EQ(outer.trainable_weights().size(), 2u);
  EXPECT_TRUE(outer.apart.built());
}
