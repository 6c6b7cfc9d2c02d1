// seq_minibatches2 and class_balancing_oversample against TensorLayer 2.2.5's iterate and utils
// (tests/vision/fixtures/tl_prepro_iterate_utils.npz from tests/vision/make_tl_prepro_fixtures.py).
#include <gtest/gtest.h>

#include "strata/core/factory.hpp"
#include "strata/data/class_balancing.hpp"
#include "strata/data/seq_minibatches2.hpp"
#include "strata/ops/shape.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "vision/tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(TlIterateUtils, SeqMinibatches2MatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("iterate_utils");
  const auto batches = data::seq_minibatches2(f.at("inputs"), f.at("targets"), 3, 2);
  const Tensor& want_x = f.at("seq2_x");
  ASSERT_EQ(int64_t(batches.size()), want_x.size(0));
  for (size_t i = 0; i < batches.size(); ++i) {
    EXPECT_EQ(batches[i].inputs.dtype(), kInt64);
    EXPECT_EQ(max_abs_diff(batches[i].inputs, select(want_x, 0, int64_t(i))), 0) << "batch " << i;
    EXPECT_EQ(batches[i].targets.dtype(), kFloat64);
    EXPECT_EQ(max_abs_diff(batches[i].targets, select(f.at("seq2_y"), 0, int64_t(i))), 0) << "batch " << i;
  }
  testing::expect_error([&] { data::seq_minibatches2(f.at("inputs"), f.at("targets"), 12, 2); },
                        {"seq_minibatches2", "too short"});
}

TEST(TlIterateUtils, ClassBalancingOversampleMatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("iterate_utils");
  const auto out = data::class_balancing_oversample(f.at("balance_x"), f.at("balance_labels").to_vector<int64_t>());
  EXPECT_EQ(out.labels, f.at("balanced_labels").to_vector<int64_t>());
  EXPECT_EQ(max_abs_diff(out.x, f.at("balanced_x")), 0);
  testing::expect_error(
      [] {
        data::class_balancing_oversample(zeros({3, 2}), {1, 2});
      },
      {"class_balancing_oversample", "[3, 2]", "2 labels"});
}

}  // namespace
}  // namespace strata
