// Runs: metrics per step and split written in batches, events, status, and reading them back.
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "support/expect_error.hpp"
#include "hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

using strata::testing::expect_error;

TEST_P(HubTest, MetricsAreBufferedAndFlushedInBatches) {
  HubOptions options;
  options.log_batch = 5;
  Hub hub = open(options);
  hub::Run run = hub.create_run("train-mlp", R"({"lr": 0.1})");
  for (int step = 0; step < 4; ++step) run.log(step, Split::train, "loss", 1.0 / (step + 1));
  EXPECT_TRUE(hub.metric_history(run.id(), "loss", Split::train).empty());  // still buffered
  run.log(4, Split::train, "loss", 0.2);                                     // the fifth fills the batch
  EXPECT_EQ(hub.metric_history(run.id(), "loss", Split::train).size(), 5u);
  run.log(4, Split::validation, {{"loss", 0.3}, {"accuracy", 0.8}});
  run.flush();
  const auto val = hub.metric_history(run.id(), "accuracy", Split::validation);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(val[0].step, 4);
  EXPECT_DOUBLE_EQ(val[0].value, 0.8);
  const auto train = hub.metric_history(run.id(), "loss", Split::train);
  for (int step = 0; step < 5; ++step) EXPECT_EQ(train[step].step, step);
  EXPECT_DOUBLE_EQ(train[1].value, 0.5);
  EXPECT_TRUE(hub.metric_history(run.id(), "loss", Split::test).empty());
}

TEST_P(HubTest, MetricSeriesListsEachNameAndSplitOnceInOrder) {
  Hub hub = open();
  hub::Run run = hub.create_run("series");
  EXPECT_TRUE(hub.metric_series(run.id()).empty());
  for (int step = 0; step < 3; ++step) {
    run.log(step, Split::validation, {{"loss", 0.5}, {"accuracy", 0.9}});
    run.log(step, Split::train, "loss", 0.4);
  }
  run.log(0, Split::test, "accuracy", 0.8);
  hub::Run other = hub.create_run("other");
  other.log(0, Split::train, "other_metric", 1);
  run.flush();
  other.flush();
  using Series = std::vector<std::pair<std::string, Split>>;
  // By name, then by the split's stored name ("test" < "train" < "validation").
  EXPECT_EQ(hub.metric_series(run.id()), (Series{{"accuracy", Split::test}, {"accuracy", Split::validation},
                                                  {"loss", Split::train}, {"loss", Split::validation}}));
  EXPECT_EQ(hub.metric_series(other.id()), (Series{{"other_metric", Split::train}}));
  EXPECT_EQ(hub.metric_series(run.id(), 3), (Series{{"accuracy", Split::test}, {"accuracy", Split::validation},
                                                     {"loss", Split::train}}));  // the first 3
  EXPECT_TRUE(hub.metric_series(run.id(), 0).empty());
  for (Split s : {Split::train, Split::validation, Split::test}) EXPECT_EQ(parse_split(split_name(s)), s);
  EXPECT_THROW(parse_split("Train"), Error);
}

// What Hub::metric_sample should give, from the whole series: the first point, then the first
// at or after each previous pick plus the spacing, while that stays within the last step; then
// every point at each pick and at the last step, in order.
std::vector<MetricPoint> expected_sample(const std::vector<MetricPoint>& all, int64_t max_points) {
  const int64_t first = all.front().step, last = all.back().step;
  const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
  const __int128 spacing = std::min<uint64_t>(span / max_points + 1, INT64_MAX);
  std::set<int64_t> picks{first, last};
  for (__int128 pick = first; pick + spacing <= last;) {
    const auto next = std::find_if(all.begin(), all.end(), [&](const MetricPoint& p) { return p.step >= pick + spacing; });
    pick = next->step;
    picks.insert(next->step);
  }
  std::vector<MetricPoint> out;
  for (const MetricPoint& p : all)
    if (picks.contains(p.step)) out.push_back(p);
  return out;
}

void expect_same_points(const std::vector<MetricPoint>& got, const std::vector<MetricPoint>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].step, want[i].step) << "point " << i;
    EXPECT_DOUBLE_EQ(got[i].value, want[i].value) << "point " << i;
  }
}

TEST_P(HubTest, MetricSampleKeepsShortSeriesWholeAndSpacesLongOnesByStep) {
  Hub hub = open();
  hub::Run run = hub.create_run("long");
  run.log(3, Split::train, "loss", 0.5);
  run.log(3, Split::train, "loss", 0.4);  // a step logged twice
  run.log(9, Split::train, "loss", 0.3);
  for (int64_t i = 0; i < 100; ++i) run.log(i * i, Split::validation, "loss", 1.0 / (i + 1));  // uneven steps
  for (int64_t step = 0; step < 1000; ++step) run.log(step, Split::train, "accuracy", step / 1000.0);
  run.flush();

  const MetricSample whole = hub.metric_sample(run.id(), "loss", Split::train, 3);
  EXPECT_FALSE(whole.thinned);
  expect_same_points(whole.points, hub.metric_history(run.id(), "loss", Split::train));
  EXPECT_FALSE(hub.metric_sample(run.id(), "loss", Split::test, 3).thinned);
  EXPECT_TRUE(hub.metric_sample(run.id(), "loss", Split::test, 3).points.empty());

  const MetricSample even = hub.metric_sample(run.id(), "accuracy", Split::train, 10);
  EXPECT_TRUE(even.thinned);
  std::vector<int64_t> steps;
  for (const MetricPoint& p : even.points) steps.push_back(p.step);
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 999}));
  expect_same_points(even.points, expected_sample(hub.metric_history(run.id(), "accuracy", Split::train), 10));

  for (int64_t max_points : {2, 5, 7, 50}) {
    SCOPED_TRACE("max_points " + std::to_string(max_points));
    const auto all = hub.metric_history(run.id(), "loss", Split::validation);
    const MetricSample uneven = hub.metric_sample(run.id(), "loss", Split::validation, max_points);
    EXPECT_TRUE(uneven.thinned);
    EXPECT_LE(static_cast<int64_t>(uneven.points.size()), max_points + 1);
    expect_same_points(uneven.points, expected_sample(all, max_points));
  }
  expect_error([&] { hub.metric_sample(run.id(), "loss", Split::train, 1); }, {"metric_sample", "2 points"});
}

// Steps are whatever was logged: the spacing of a series from INT64_MIN to INT64_MAX must not
// overflow, and a series logged at one step is cut at the limit rather than read whole.
TEST_P(HubTest, MetricSampleOfExtremeAndRepeatedSteps) {
  Hub hub = open();
  hub::Run run = hub.create_run("hostile");
  for (int64_t step : {INT64_MIN, INT64_MIN + 1, int64_t{-5}, int64_t{0}, int64_t{7}, INT64_MAX - 1, INT64_MAX})
    run.log(step, Split::train, "loss", static_cast<double>(step % 1000));
  for (int i = 0; i < 30; ++i) run.log(5, Split::test, "loss", i);
  run.flush();
  const auto all = hub.metric_history(run.id(), "loss", Split::train);
  for (int64_t max_points : {2, 3, 4}) {
    SCOPED_TRACE("max_points " + std::to_string(max_points));
    const MetricSample sample = hub.metric_sample(run.id(), "loss", Split::train, max_points);
    EXPECT_TRUE(sample.thinned);
    expect_same_points(sample.points, expected_sample(all, max_points));
    EXPECT_EQ(sample.points.front().step, INT64_MIN);
    EXPECT_EQ(sample.points.back().step, INT64_MAX);
  }
  const MetricSample repeated = hub.metric_sample(run.id(), "loss", Split::test, 10);
  EXPECT_TRUE(repeated.thinned);
  ASSERT_EQ(repeated.points.size(), 22u);  // 2 * max_points + 2 of the 30
  for (const MetricPoint& p : repeated.points) EXPECT_EQ(p.step, 5);
}

TEST_P(HubTest, LatestEventsAreTheNewestOldestFirst) {
  Hub hub = open();
  hub::Run run = hub.create_run("events");
  for (int i = 0; i < 7; ++i) run.event("epoch_end", "{\"epoch\": " + std::to_string(i) + "}");
  hub::Run other = hub.create_run("other");
  other.event("epoch_end", "{\"epoch\": 99}");
  run.flush();
  other.flush();
  const auto payloads = [](const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const Event& e : events) out.push_back(e.payload);
    return out;
  };
  EXPECT_EQ(payloads(hub.latest_events(run.id(), 3)),
            (std::vector<std::string>{R"({"epoch": 4})", R"({"epoch": 5})", R"({"epoch": 6})"}));
  EXPECT_EQ(hub.latest_events(run.id(), 100).size(), 7u);
  EXPECT_EQ(payloads(hub.latest_events(run.id(), 100)), payloads(hub.events(run.id())));
  EXPECT_TRUE(hub.latest_events(run.id(), 0).empty());
  EXPECT_EQ(payloads(hub.latest_events(other.id(), 5)), (std::vector<std::string>{R"({"epoch": 99})"}));
}

TEST_P(HubTest, BufferedPointsAreWrittenWithinTheFlushInterval) {
  using namespace std::chrono;
  const auto interval = milliseconds(200);
  Hub hub = open({.flush_interval = interval});
  hub::Run run = hub.create_run("timed");
  for (int step = 0; step < 3; ++step) run.log(step, Split::train, "loss", 1.0 / (step + 1));
  const auto logged = steady_clock::now();
  Hub reader = open();  // a second connection, as another process would read
  EXPECT_TRUE(reader.metric_history(run.id(), "loss", Split::train).empty());  // still buffered
  std::this_thread::sleep_for(interval + milliseconds(100));
  std::vector<MetricPoint> points;
  // The timer writes them with no further call. How soon depends on the machine's load, so the
  // wait is long: it ends as soon as the points are there.
  while ((points = reader.metric_history(run.id(), "loss", Split::train)).size() < 3 &&
         steady_clock::now() - logged < seconds(60))
    std::this_thread::sleep_for(milliseconds(20));
  ASSERT_EQ(points.size(), 3u);
  EXPECT_DOUBLE_EQ(points[2].value, 1.0 / 3);
  // The flusher keeps serving the run: a later point is written without any further call.
  run.event("done");
  while (reader.events(run.id()).empty() && steady_clock::now() - logged < seconds(60))
    std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(reader.events(run.id()).size(), 1u);
}

TEST_P(HubTest, DestroyingARunFlushesIt) {
  Hub hub = open();
  int64_t id = 0;
  {
    hub::Run run = hub.create_run("r");
    id = run.id();
    run.log(1, Split::test, "accuracy", 0.75);
    run.event("lr_change", R"({"lr": 0.01})");
  }
  EXPECT_EQ(hub.metric_history(id, "accuracy", Split::test).size(), 1u);
  ASSERT_EQ(hub.events(id).size(), 1u);
  EXPECT_EQ(hub.events(id)[0].kind, "lr_change");
  EXPECT_EQ(hub.events(id)[0].payload, R"({"lr": 0.01})");
}

TEST_P(HubTest, RunsRecordStatusAndListNewestFirst) {
  Hub hub = open();
  for (int i = 0; i < 5; ++i) {
    hub::Run run = hub.create_run("run" + std::to_string(i), R"({"i": )" + std::to_string(i) + "}");
    if (i == 3) run.finish("failed");
  }
  auto runs = hub.list_runs({.limit = 2});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "run4");
  EXPECT_EQ(runs[1].name, "run3");
  EXPECT_EQ(runs[1].status, "failed");
  EXPECT_GT(runs[1].finished_at, 0);
  EXPECT_EQ(runs[0].status, "running");
  EXPECT_EQ(hub.list_runs({.limit = 10, .offset = 4}).size(), 1u);
  EXPECT_EQ(hub.run_info(runs[0].id)->config, R"({"i": 4})");
  EXPECT_FALSE(hub.run_info(999));
  // A model records the run that produced it.
  hub::Run run = hub.create_run("producer");
  hub.save_model("m", small_model(1), {.run_id = run.id()});
  EXPECT_EQ(hub.load_model("m").info.meta.run_id, run.id());
}

TEST_P(HubTest, RejectsInvalidJson) {
  Hub hub = open();
  EXPECT_THROW(hub.create_run("r", "{oops"), Error);
  hub::Run run = hub.create_run("r");
  EXPECT_THROW(run.event("e", "not json"), Error);
}

// Every one of many buffered points is written, in order. How fast is bench_hub's question
// ("Run::log, then flush"): a time limit here would fail on a loaded machine, not on a slow hub.
TEST_P(HubTest, ManyLoggedPointsAreAllWritten) {
  Hub hub = open();
  hub::Run run = hub.create_run("many");
  const int n = 50'000;
  for (int i = 0; i < n; ++i) run.log(i, Split::train, "loss", 1.0 / (i + 1));
  run.flush();
  const auto points = hub.metric_history(run.id(), "loss", Split::train);
  ASSERT_EQ(points.size(), static_cast<size_t>(n));
  for (int i : {0, n / 2, n - 1}) {
    EXPECT_EQ(points[i].step, i);
    EXPECT_DOUBLE_EQ(points[i].value, 1.0 / (i + 1));
  }
}

}  // namespace
}  // namespace strata::hub::testing
