// Online data: an AppendableStream read while it grows, and the ChangeTrigger's firing rules.
#include <gtest/gtest.h>

#include <thread>

#include "strata/core/factory.hpp"
#include "strata/data/change_trigger.hpp"

using namespace strata;
using namespace strata::data;

namespace {

Example labelled(int64_t label) { return {zeros({2}), scalar_tensor(static_cast<double>(label), kInt64)}; }

}  // namespace

TEST(Online, ReaderWaitsForAppendsUntilClosed) {
  AppendableStream online;
  online.append(labelled(0));
  EXPECT_EQ(online.snapshot().size(), 1);
  std::vector<int64_t> seen;
  std::thread consumer([&] {
    for (const Example& ex : online.stream().batch(2, {.drop_last = false}))
      for (int64_t v : ex[1].to_vector<int64_t>()) seen.push_back(v);
  });
  for (int64_t i = 1; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    online.append(labelled(i));
  }
  online.close();
  consumer.join();
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_THROW(online.append(labelled(5)), Error);
  // A second pass replays from the start; a non-waiting pass ends at what is there.
  AppendableStream open;
  open.append(labelled(1));
  int n = 0;
  for (const Example& ex : open.stream(false)) n += static_cast<int>(ex.size());
  EXPECT_EQ(n, 2);
}

TEST(Online, FiresAfterNewSamplesAndFraction) {
  std::vector<ChangeReport> reports;
  ChangeTrigger by_count({.new_samples = 3}, [&](const ChangeReport& r) { reports.push_back(r); });
  for (int i = 0; i < 7; ++i) by_count.observe(labelled(0));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].reason, "new_samples");
  EXPECT_EQ(reports[1].total, 6);

  reports.clear();
  std::vector<Example> initial(10, labelled(0));
  ChangeTrigger by_fraction({.fraction = 0.5}, [&](const ChangeReport& r) { reports.push_back(r); }, initial);
  for (int i = 0; i < 4; ++i) by_fraction.observe(labelled(0));
  EXPECT_TRUE(reports.empty());
  by_fraction.observe(labelled(0));  // 5 new = half of 10
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].reason, "fraction");
  // The baseline is now 15 samples: 7 more do not fire, the 8th does.
  for (int i = 0; i < 7; ++i) by_fraction.observe(labelled(0));
  EXPECT_EQ(by_fraction.fired(), 1);
  by_fraction.observe(labelled(0));
  EXPECT_EQ(by_fraction.fired(), 2);
}

TEST(Online, FiresOnALabelShiftButNotOnTheSameDistribution) {
  std::vector<Example> initial;
  for (int i = 0; i < 100; ++i) initial.push_back(labelled(i % 2));  // half 0, half 1
  ChangeThresholds t{.label_shift = 0.3, .num_classes = 3, .min_shift_samples = 20};
  ChangeTrigger trigger(t, nullptr, initial);
  AppendableStream online;
  trigger.watch(online);
  for (int i = 0; i < 200; ++i) online.append(labelled(i % 2));  // the same distribution
  EXPECT_EQ(trigger.fired(), 0);

  std::vector<ChangeReport> reports;
  ChangeTrigger shifted(t, [&](const ChangeReport& r) { reports.push_back(r); }, initial);
  for (int i = 0; i < 19; ++i) shifted.observe(labelled(2));  // a new class, but too few to judge
  EXPECT_TRUE(reports.empty());
  shifted.observe(labelled(2));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].reason, "label_shift");
  EXPECT_NEAR(reports[0].label_shift, 1.0, 1e-12);
  EXPECT_THROW(shifted.observe(labelled(3)), Error);
  EXPECT_THROW(ChangeTrigger({.label_shift = 0.1}, nullptr), Error);
}
