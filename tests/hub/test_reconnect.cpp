// A PostgreSQL server restarted under a long-lived process (strata serve's poller, the
// dashboard, a training run's log): the hub's connection is reopened before its next statement,
// between transactions, and never inside one. On a cluster of the test's own, since the shared
// one serves other tests; skipped where PostgreSQL is not installed.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/expect_error.hpp"
#include "hub/database.hpp"
#include "hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

using namespace std::chrono_literals;
using strata::testing::expect_error;

class PostgresRestart : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = PostgresCluster::start_own();
    if (!cluster_) GTEST_SKIP() << PostgresCluster::why();
    cluster_->create_database("restarted");
    url_ = cluster_->url("restarted");
  }
  std::unique_ptr<PostgresCluster> cluster_;
  std::string url_;
};

TEST_F(PostgresRestart, HubKeepsWorkingWithoutBeingReopened) {
  Hub hub = Hub::open(url_);
  EXPECT_EQ(hub.save_dataset("d", small_model(1)), 1);
  hub::Run run = hub.create_run("training");
  run.log(0, Split::train, "loss", 1.0);
  run.flush();

  ASSERT_TRUE(cluster_->restart(300ms));  // a fast shutdown: the server closes every connection
  EXPECT_EQ(hub.find_datasets().size(), 1u);  // a read, the first statement after the restart
  EXPECT_EQ(hub.save_dataset("d", small_model(2)), 2);  // a write transaction
  run.log(1, Split::train, "loss", 0.5);
  run.flush();
  EXPECT_EQ(hub.metric_history(run.id(), "loss", Split::train).size(), 2u);
  expect_same_weights(hub.load_dataset("d").tensors, small_model(2));

  // While the server is down, statements fail naming the cause; once it is back they work again.
  std::thread restart([&] { EXPECT_TRUE(cluster_->restart(2000ms)); });
  std::this_thread::sleep_for(1000ms);
  expect_error([&] { hub.find_datasets(); }, {"lost the connection to PostgreSQL", "could not reopen it"});
  restart.join();
  EXPECT_EQ(hub.find_datasets().size(), 2u);
}

// A transaction whose connection died is not carried on over a new one: its earlier statements
// are gone with the old session, and running the rest would commit half of it.
TEST_F(PostgresRestart, TransactionCutByARestartFailsAndLeavesNothing) {
  auto db = detail::open_database(url_, 1000);
  db->begin(true);
  db->execute("CREATE TABLE half (x integer)");
  ASSERT_TRUE(cluster_->restart(300ms));
  EXPECT_THROW(db->execute("INSERT INTO half VALUES (1)"), Error);
  EXPECT_THROW(db->commit(), Error);
  db->rollback();
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'half'"), 0);
  db->transaction(true, [&] { db->execute("CREATE TABLE whole (x integer)"); });
  EXPECT_EQ(db->query_int("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'whole'"), 1);
}

}  // namespace
}  // namespace strata::hub::testing
