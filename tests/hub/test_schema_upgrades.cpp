// Hubs made by every earlier schema version (tests/hub/fixtures, written by
// fixtures/make_schema_fixtures.cpp) open with today's code, migrate to the current version and
// keep their content: models and their weights, metrics, tags and values, runs with their logs
// and events, datasets, the workflow's tasks; and new saves work on them.
#include "../../src/hub/schema.hpp"
#include "hub_fixture.hpp"
#include "schema_fixture.hpp"
#include "strata/hub/shared_connection.hpp"

namespace strata::hub::testing {
namespace {

namespace fx = schema_fixture;

const fs::path kFixtures = fs::path(STRATA_TESTS_DIR) / "hub" / "fixtures";

// One earlier version's fixture, restored where today's code can open it. Empty when the
// fixture is missing (a test failure names it).
class UpgradedHub {
 public:
  UpgradedHub(PostgresCluster* cluster, const fs::path& dir, const std::string& database, int64_t k)
      : cluster_(cluster) {
    const std::string stem = "schema_v" + std::to_string(k);
    if (!cluster) {
      const fs::path db = kFixtures / (stem + ".db"), blobs = kFixtures / (stem + ".db-blobs");
      if (!fs::exists(db)) return;
      url_ = (dir / (stem + ".db")).string();
      fs::copy_file(db, url_);  // opening migrates it: never the committed file
      if (fs::exists(blobs)) fs::copy(blobs, url_ + "-blobs");
    } else {
      const fs::path dump = kFixtures / (stem + ".pg_dump");
      if (!fs::exists(dump)) return;
      database_ = database + "_v" + std::to_string(k);
      cluster->create_database(database_);
      if (!cluster->psql_file(database_, dump.string())) throw std::runtime_error("cannot restore " + dump.string());
      url_ = cluster->url(database_);
    }
  }
  ~UpgradedHub() {
    if (cluster_ && !database_.empty()) cluster_->drop_database(database_);
  }
  const std::string& url() const { return url_; }

 private:
  PostgresCluster* cluster_;
  std::string url_, database_;
};

int64_t count(Hub& hub, const std::string& sql) {
  return SharedConnection(hub).lock().db().query_int(sql).value_or(-1);
}

TEST_P(HubTest, EveryEarlierSchemaVersionOpensMigratesAndKeepsItsContent) {
  for (int64_t k = 1; k < detail::schema_version(); ++k) {
    SCOPED_TRACE("schema version " + std::to_string(k));
    const UpgradedHub fixture(cluster_, dir_, database_, k);
    ASSERT_FALSE(fixture.url().empty()) << "no fixture of schema version " << k << " in " << kFixtures
                                        << ": build and run make_hub_schema_fixtures";
    Hub hub = Hub::open(fixture.url(), {.project = fx::kProject, .cache_bytes = 0});
    EXPECT_EQ(count(hub, "SELECT MAX(version) FROM schema_version"), detail::schema_version());

    const LoadedModel model = hub.load_model(fx::kModel, 1);
    expect_same_weights(model.weights, fx::model_weights());
    EXPECT_EQ(model.info.meta.architecture, fx::kArchitecture);
    EXPECT_EQ(model.info.meta.metrics, fx::kMetrics);
    EXPECT_EQ(model.info.meta.tags, fx::kTags);
    EXPECT_EQ(model.info.meta.values, fx::kValues);
    const auto top = hub.find_top_model(fx::kModel, fx::kMetrics.begin()->first, Order::descending,
                                        {.tags = fx::kTags, .values = fx::kValues});
    ASSERT_TRUE(top.has_value());
    EXPECT_EQ(top->info.version, 1);

    const auto runs = hub.list_runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].name, fx::kRun);
    EXPECT_EQ(runs[0].status, fx::kRunStatus);
    EXPECT_EQ(model.info.meta.run_id, runs[0].id);
    const auto losses = hub.metric_history(runs[0].id, fx::kLossMetric, Split::train);
    ASSERT_EQ(losses.size(), fx::kLosses.size());
    for (size_t i = 0; i < losses.size(); ++i) {
      EXPECT_EQ(losses[i].step, static_cast<int64_t>(i + 1));
      EXPECT_EQ(losses[i].value, fx::kLosses[i]);
    }
    const auto events = hub.events(runs[0].id);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, fx::kEventKind);

    if (k >= fx::kFirstWithDatasets) {
      const LoadedDataset dataset = hub.load_dataset(fx::kDataset, 1);
      expect_same_weights(dataset.tensors, fx::dataset_tensors());
      EXPECT_EQ(dataset.info.meta.description, fx::kDatasetDescription);
      EXPECT_EQ(dataset.info.meta.values, fx::kDatasetValues);
      EXPECT_EQ(model.info.meta.dataset_id, dataset.info.id);
    }
    if (k >= fx::kFirstWithTasks)
      EXPECT_EQ(count(hub, "SELECT COUNT(*) FROM tasks WHERE status = 'succeeded'"), 1);
    if (postgres())  // migration 5: weights are not worth compressing
      EXPECT_EQ(count(hub, "SELECT COUNT(*) FROM pg_attribute WHERE attrelid = 'blob_chunks'::regclass "
                           "AND attname = 'data' AND attstorage = 'e'"),
                1);

    // Writes work on the migrated hub: a new version (a blob file on SQLite), and deleting the
    // old one with its blob.
    const auto weights = small_model(k);
    EXPECT_EQ(hub.save_model(fx::kModel, weights), 2);
    expect_same_weights(hub.load_model(fx::kModel, 2).weights, weights);
    const int64_t blobs = hub.store_size().blobs;
    EXPECT_EQ(hub.delete_model(fx::kModel, 1), 1);
    EXPECT_EQ(hub.store_size().blobs, blobs - 1);
    expect_same_weights(Hub::open(fixture.url(), {.project = fx::kProject}).load_model(fx::kModel).weights, weights);
  }
}

}  // namespace
}  // namespace strata::hub::testing
